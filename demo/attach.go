package demo

import (
	"context"
	"fmt"
	"time"
)

// attached attaches the user's terminal to the private server and follows the cycle there:
// each session's border says what last happened to it, the status line the countdown and
// the progress. After the cycle the view stays for Options.hold (the status line counts
// down), then the server goes; detaching ends it at once. The timeline is printed once the
// terminal is the user's again.
func (w *world) attached(ctx context.Context) error {
	t := w.o.Term
	octx, cancel := context.WithCancel(ctx)
	defer cancel()
	ended := make(chan error, 1)
	go func() {
		ended <- w.tmux.Attach("demo", t.In, t.Out, t.Err)
		cancel() // the client ended: detached, or the server is gone
	}()
	err := w.observe(octx, func(e event) { w.told(octx, e) }, func() { w.status(octx, "") })
	if err == nil {
		w.hold(octx)
	}
	w.tmux.Run(context.Background(), "kill-server")
	attachErr := <-ended
	for _, e := range w.judge.Events() {
		fmt.Fprintln(w.o.Out, e.Format(w.plan.start, label))
	}
	switch {
	case w.judge.Err() != nil:
		return fmt.Errorf("demo: %w", w.judge.Err())
	case w.judge.Complete():
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("demo: interrupted: %w", ctx.Err())
	case attachErr != nil:
		return fmt.Errorf("demo: attach: %w", attachErr)
	}
	fmt.Fprintln(w.o.Err, "cac-tmux demo: left before the end of the cycle; the private server is gone and its files removed")
	return nil
}

// hold keeps the view for Options.hold after the cycle, the status line counting down, unless the
// user leaves first.
func (w *world) hold(ctx context.Context) {
	verdict := "cycle complete ✓"
	if err := w.judge.Err(); err != nil {
		verdict = "FAILED: " + err.Error()
	}
	for left := w.o.hold; left > 0; left -= time.Second {
		w.status(ctx, fmt.Sprintf("%s · closes in %s · C-q leaves now", verdict, since(left)))
		if w.o.clock.Sleep(ctx, time.Second) != nil {
			return
		}
	}
}

// status sets the right of the status line: text, or the countdown and the progress.
func (w *world) status(ctx context.Context, text string) {
	if text == "" {
		now := w.o.clock.Now()
		done, all := w.judge.Progress()
		text = fmt.Sprintf("resets %s", w.plan.reset.Format(time.TimeOnly))
		if d := w.plan.reset.Sub(now); d > 0 {
			text += " · in " + since(d+time.Second-1)
		}
		text += fmt.Sprintf(" · %d of %d through · C-q (or prefix d) leaves", done, all)
	}
	if text != w.shown {
		w.shown = text
		w.tmux.SetGlobalOption(ctx, "@demo", text)
	}
}
