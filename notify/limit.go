package notify

import "time"

// limiter keeps a flapping pane from sending a storm: per pane, an event of the same kind
// within minGap of the last one sent is dropped, and at most maxPerHour events are sent in
// any hour (0: no cap). It is pure: the instant is an argument.
type limiter struct {
	minGap     time.Duration
	maxPerHour int
	panes      map[string]*paneLimit
}

// paneLimit is what the limiter remembers of one pane.
type paneLimit struct {
	last map[EventKind]time.Time // when each kind was last sent
	sent []time.Time             // when events were sent in the last hour, oldest first
	// capped is true from the first event dropped by the hourly cap until one is sent again:
	// the cap is logged once per run of drops.
	capped bool
}

// verdict is the limiter's answer for one event.
type verdict int

const (
	allow     verdict = iota
	tooSoon           // the same kind within minGap
	capped            // over the hourly cap, the first such drop in a run
	stillOver         // over the hourly cap again
)

func newLimiter(minGap time.Duration, maxPerHour int) *limiter {
	return &limiter{minGap: minGap, maxPerHour: maxPerHour, panes: map[string]*paneLimit{}}
}

// take decides on an event of kind for pane at now, and records it when it is allowed. A
// clock set back (now before what was recorded) forgets the pane's history rather than
// holding events for as long as it went back.
func (l *limiter) take(pane string, kind EventKind, now time.Time) verdict {
	l.forget(now)
	p := l.panes[pane]
	if p == nil {
		p = &paneLimit{last: map[EventKind]time.Time{}}
		l.panes[pane] = p
	}
	if n := len(p.sent); n > 0 && now.Before(p.sent[n-1]) {
		*p = paneLimit{last: map[EventKind]time.Time{}}
	}
	if last, ok := p.last[kind]; ok && now.Sub(last) < l.minGap {
		return tooSoon
	}
	if l.maxPerHour > 0 && len(p.sent) >= l.maxPerHour {
		if p.capped {
			return stillOver
		}
		p.capped = true
		return capped
	}
	p.capped = false
	p.last[kind] = now
	p.sent = append(p.sent, now)
	return allow
}

// forget drops what is older than an hour (and than minGap), and the panes left with nothing.
func (l *limiter) forget(now time.Time) {
	keep := max(time.Hour, l.minGap)
	for id, p := range l.panes {
		i := 0
		for i < len(p.sent) && now.Sub(p.sent[i]) >= time.Hour {
			i++
		}
		p.sent = p.sent[i:]
		for k, t := range p.last {
			if now.Sub(t) >= keep {
				delete(p.last, k)
			}
		}
		if len(p.sent) == 0 && len(p.last) == 0 {
			delete(l.panes, id)
		}
	}
}
