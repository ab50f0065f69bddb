package agent

import (
	"bytes"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Lines any client can make the agent log (an accepted DECLINE or
// RELEASE, a decline disproved) are limited at level 0 to logBurst per
// logInterval for each kind; the rest are counted, and the next line of
// the kind that is logged says how many were not ("notLogged"). The
// periodic summary (Summarize) counts every DECLINE and RELEASE, logged
// or not, and -v=1 logs each packet.
const (
	logBurst    = 10
	logInterval = time.Minute
)

// lineLimit decides which lines of one kind are logged. The zero
// lineLimit is ready; it is safe for concurrent use.
type lineLimit struct {
	mu      sync.Mutex
	start   time.Time // of the current interval
	logged  int       // lines logged in it
	skipped uint64    // lines not logged since the last logged
}

// allow reports whether a line at now is logged, and if so how many lines
// were not since the last one that was.
func (l *lineLimit) allow(now time.Time) (ok bool, skipped uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.start) >= logInterval || now.Before(l.start) {
		l.start, l.logged = now, 0
	}
	if l.logged >= logBurst {
		l.skipped++
		return false, 0
	}
	l.logged++
	skipped, l.skipped = l.skipped, 0
	return true, skipped
}

// maxClientText is how many bytes of a client's text (a DECLINE's message,
// option 56) a log line carries.
const maxClientText = 256

// clientText is text a client sent, fit for one log line whatever it
// holds: at most maxClientText bytes of it, escaped as a Go string literal
// is (no newline or control byte, a backslash doubled, invalid UTF-8 as \x
// escapes) but for the quotes, which the logger escapes, followed by
// "... (N bytes)" when it was longer.
func clientText(b []byte) string {
	cut := b
	if len(cut) > maxClientText {
		cut = cut[:maxClientText]
		// Do not split a character into \x escapes: back up to its start.
		for i := 0; i < utf8.UTFMax-1 && len(cut) > 0 && !utf8.RuneStart(b[len(cut)]); i++ {
			cut = cut[:len(cut)-1]
		}
	}
	q := strconv.AppendQuote(make([]byte, 0, len(cut)+8), string(cut))
	// The logger quotes the value again: leave the quotes to it, so that
	// they are not escaped twice. (In AppendQuote's output every quote is
	// escaped and every backslash doubled, so each \" is a quote.)
	q = bytes.ReplaceAll(q[1:len(q)-1], []byte(`\"`), []byte(`"`))
	if len(cut) < len(b) {
		q = append(q, "... ("...)
		q = strconv.AppendInt(q, int64(len(b)), 10)
		q = append(q, " bytes)"...)
	}
	return string(q)
}
