package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLine bounds one JSON-RPC message from the client. Tool calls carry a
// query or a fact: a megabyte is far more than either needs.
const MaxLine = 1 << 20

// quoteLen bounds how much of a client's input an error quotes.
const quoteLen = 64

// Transport is stdio for the server that outlives bad input: the SDK's
// transport ends the session on the first line that is not a JSON-RPC
// message, so each line is checked first. A line that is not JSON, not a
// JSON-RPC message, or longer than MaxLine is answered with a JSON-RPC
// error that quotes at most its first 64 bytes, and the server goes on
// with the next line. Writes from the SDK and these errors share one lock,
// so a line is never interleaved.
func Transport(in io.Reader, out io.Writer) mcp.Transport {
	w := &lockedWriter{w: out}
	return &mcp.IOTransport{
		Reader:        &lineFilter{r: bufio.NewReaderSize(in, 64<<10), w: w},
		Writer:        w,
		MaxLineLength: MaxLine + 1,
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// lineFilter passes on the lines that are JSON-RPC messages and answers
// the others. Only the SDK's read goroutine calls Read.
type lineFilter struct {
	r       *bufio.Reader
	w       *lockedWriter
	pending []byte // the rest of a good line, to be read
	n       int    // lines read
	err     error  // the reader's error, once reached
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, long := f.next()
		if len(bytes.TrimSpace(line)) == 0 && !long {
			continue
		}
		f.n++
		if reject := check(line, long); reject != nil {
			_, _ = f.w.Write(reject)
			continue
		}
		f.pending = append(line, '\n')
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *lineFilter) Close() error { return nil }

// next reads one line without its newline, at most MaxLine bytes of it:
// long reports a line cut there (the rest is read and dropped).
func (f *lineFilter) next() (line []byte, long bool) {
	for {
		chunk, err := f.r.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLine {
			long = true
		} else {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			f.err = err
		}
		return bytes.TrimRight(line, "\r\n"), long
	}
}

// check returns the error response to a line that is no JSON-RPC message,
// or nil.
func check(line []byte, long bool) []byte {
	if long {
		return errorLine(leadingID(line), -32600, fmt.Sprintf("request too large: over %d bytes, starting %s", MaxLine, quote(line)))
	}
	if !json.Valid(line) {
		return errorLine(leadingID(line), -32700, "parse error: not JSON: "+quote(line))
	}
	msgs := []json.RawMessage{line}
	if t := bytes.TrimSpace(line); t[0] == '[' {
		if json.Unmarshal(t, &msgs) != nil || len(msgs) == 0 {
			return errorLine(nil, -32600, "invalid request: an empty or broken batch: "+quote(line))
		}
	}
	for _, m := range msgs {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			return errorLine(idOf(m), -32600, "invalid request: not a JSON-RPC 2.0 message: "+quote(m))
		}
	}
	return nil
}

// idOf is the request's id when it has one a response can carry.
func idOf(m []byte) json.RawMessage {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(m, &v) != nil || len(v.ID) == 0 || v.ID[0] != '"' && (v.ID[0] < '0' || v.ID[0] > '9') && v.ID[0] != '-' {
		return nil
	}
	return v.ID
}

// leadingID is the id of a request that cannot be decoded whole (cut at
// MaxLine, or broken further on), read from the start of the line: the
// members of the top-level object are read in order until "id", so an id
// that comes before the break is found, and the client can match the
// error to its request. Nil when the line does not start as an object or
// breaks before its id.
func leadingID(line []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for {
		key, err := dec.Token()
		if k, ok := key.(string); err != nil || !ok {
			return nil
		} else if k != "id" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		var id json.RawMessage
		if dec.Decode(&id) != nil {
			return nil
		}
		if _, err := dec.Token(); err != nil {
			return nil // the line ends in the id: it may be cut short
		}
		return idOf(append(append([]byte(`{"id":`), id...), '}'))
	}
}

func errorLine(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return append(b, '\n')
}

// quote is at most the first quoteLen bytes of a client's input, control
// characters dropped, quoted.
func quote[T ~[]byte | ~string](in T) string {
	s := strings.ToValidUTF8(string(in[:min(len(in), quoteLen+4)]), "")
	cut := len(in) > quoteLen
	if len(s) > quoteLen {
		s = s[:quoteLen]
		for len(s) > 0 && !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if cut {
		return fmt.Sprintf("%q… (%d bytes)", s, len(in))
	}
	return fmt.Sprintf("%q", s)
}
