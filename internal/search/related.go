package search

import (
	"context"
	"database/sql"
	"strings"

	"github.com/memoryd/memoryd/internal/thesaurus"
)

// Related words. A query word that no fact has in any form, nor a synonym
// of it, and that the system's English thesaurus knows (WordNet, see
// internal/thesaurus) is looked for as the words related to it that facts
// have — its synonyms, the words derived from it, its narrower words:
// "herb" finds "coriander", "physician" finds "doctor", "pills" finds
// "tablet". Each counts relatedWeight of the word, below the words as
// typed. A word the thesaurus knows is not taken for a typo: "cheer" is
// not a misspelt "cheek". Without a thesaurus installed, nothing changes.

// relatedWeight is what a related word counts, as a share of the word's
// weight; a var so the recall benchmark can compare settings.
var relatedWeight = 0.5

// The most synsets of the thesaurus (about a microsecond each) one search
// reads for all its words together, and for one word.
const (
	relatedBudget  = 1000
	relatedPerWord = 300
)

// thesaurusOf returns the thesaurus searches use, nil for none; a var so
// tests can take it away.
var thesaurusOf = thesaurus.Default

// relatedAlts returns the alternatives of word w, which no fact has: the
// stems of its related words that facts have, nearest first, each
// weighing relatedWeight. known reports whether the thesaurus knows w.
// budget is what the search may still read of the thesaurus.
func (x *Index) relatedAlts(ctx context.Context, conn *sql.Conn, v *view, w string, budget *int) (alts []*alt, known bool, err error) {
	t := thesaurusOf()
	if t == nil || relatedWeight <= 0 || *budget <= 0 {
		return nil, false, nil
	}
	words, read := t.Related(w, min(*budget, relatedPerWord))
	*budget -= read
	if len(words) == 0 {
		return nil, false, nil
	}
	var stems, exact []string
	seen := map[string]bool{stem(w): true}
	for _, rw := range words {
		if st := stem(rw); !seen[st] {
			seen[st] = true
			stems, exact = append(stems, st), append(exact, rw)
		}
	}
	if err := x.readStems(ctx, conn, v, stems); err != nil {
		return nil, true, err
	}
	for i, st := range stems {
		if lists := v.stems[st]; len(lists) > 0 {
			alts = append(alts, &alt{word: w, stem: st, exact: exact[i], weight: relatedWeight, kind: "related", lists: lists})
		}
	}
	return alts, true, nil
}

// readStems reads into v the postings of the stems it does not hold yet,
// in one query; a stem no term has is held as none.
func (x *Index) readStems(ctx context.Context, conn *sql.Conn, v *view, stems []string) error {
	var args []any
	for _, st := range stems {
		if _, ok := v.stems[st]; !ok {
			args = append(args, st)
		}
	}
	if len(args) == 0 {
		return nil
	}
	rows, err := conn.QueryContext(ctx, `SELECT stem, form, postings FROM term WHERE stem IN (?`+
		strings.Repeat(",?", len(args)-1)+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	read := make(map[string][]*formList, len(args))
	for rows.Next() {
		var st, form string
		var b []byte
		if err := rows.Scan(&st, &form, &b); err != nil {
			return err
		}
		l, err := decodeList(form, b)
		if err != nil {
			return err
		}
		read[st] = append(read[st], l)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, st := range args {
		lists := read[st.(string)]
		v.stems[st.(string)] = lists
		for _, l := range lists {
			v.postings += len(l.ids)
		}
	}
	return nil
}
