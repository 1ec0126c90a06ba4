package watcher

import "time"

// When shows instant t for people in the zone of now (the one zone of a screen: the user's)
// with layout, after its date when it is not on now's day there, so that a wait of days
// ("next attempt Nov 24 19:30:00") is not read as today's. The live table, list, the popup,
// status and the watcher's notes and messages all show times through it.
func When(t time.Time, layout string, now time.Time) string {
	t = t.In(now.Location())
	if t.Format(time.DateOnly) != now.Format(time.DateOnly) {
		layout = "Jan 2 " + layout
	}
	return t.Format(layout)
}
