package warm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/memoryd/memoryd/internal/search"
	"github.com/memoryd/memoryd/internal/state"
)

// Ask asks the daemon of the memory folder memoryDir, listening in
// stateDir, for q's hits, within Timeout (or ctx's deadline, if sooner).
// version names the build asking: a daemon of another build does not
// answer. It returns search.ErrNoWords as search.Index does, and an error
// matching ErrUnavailable whenever the caller must search by itself; it
// costs a failed connect (microseconds) when no daemon listens.
func Ask(ctx context.Context, stateDir, memoryDir, version string, q search.Query) ([]search.Hit, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", filepath.Join(stateDir, state.WarmSocket))
	if err != nil {
		return nil, unavailable(err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) }) // a cancelled caller stops waiting
	defer stop()
	req := Request{Protocol: Protocol, Version: version, MemoryDir: memoryDir, Query: toWire(q)}
	line, err := json.Marshal(req)
	if err != nil {
		return nil, unavailable(err)
	}
	if _, err := conn.Write(append(line, '\n')); err != nil {
		return nil, unavailable(err)
	}
	r := bufio.NewReaderSize(conn, 64<<10)
	var resp Response
	if err := readLine(r, &resp); err != nil {
		return nil, unavailable(err)
	}
	switch resp.Code {
	case "":
		return resp.Hits, nil
	case codeNoWords:
		return nil, search.ErrNoWords
	}
	return nil, unavailable(fmt.Errorf("the daemon did not answer (%s): %s", resp.Code, resp.Error))
}

// unavailable wraps why the daemon could not be asked.
func unavailable(err error) error {
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// readLine decodes one line of JSON from r into v, at most maxLine bytes.
func readLine(r *bufio.Reader, v any) error {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return errors.New("line too long")
		}
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
	return json.Unmarshal(line, v)
}
