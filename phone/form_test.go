package phone

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/cac-tmux/cac-tmux/notify"
)

// The reply form in a real browser: headless Chromium driven over the DevTools protocol
// (golang.org/x/net/websocket, a part of the x/net module the endpoint already uses), which
// emulates a phone (390×844 CSS pixels, a mobile viewport: Chromium's own --window-size
// cannot make a window narrower than 500 pixels) and measures the page as the Handler serves
// it, its Content-Security-Policy included (DevTools' evaluation is not a script of the page).

// rect is a box of the page, in CSS pixels.
type rect struct{ X, Y, W, H float64 }

// formBoxes is what measureForm finds in the page.
type formBoxes struct {
	Send, Text            rect
	ViewW, ViewH, ScrollW float64
	Heading, Where        string
}

// measureForm is evaluated in the page: the boxes a person holding a phone meets.
const measureForm = `(() => {
  const box = (sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return {X: r.x, Y: r.y, W: r.width, H: r.height}; };
  return JSON.stringify({Send: box("#send"), Text: box("textarea"), ViewW: innerWidth, ViewH: innerHeight,
    ScrollW: document.documentElement.scrollWidth, Heading: document.querySelector("h1").textContent,
    Where: document.querySelector(".where").textContent});
})()`

// devtools is one page of a headless Chromium, driven over the DevTools protocol.
type devtools struct {
	ws   *websocket.Conn
	next int
}

// call sends method with params and returns its result; events that arrive meanwhile are
// passed to seen.
func (d *devtools) call(method string, params any, seen func(event string)) (json.RawMessage, error) {
	d.next++
	if err := websocket.JSON.Send(d.ws, map[string]any{"id": d.next, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		var m struct {
			ID     int             `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct{ Message string }
		}
		if err := websocket.JSON.Receive(d.ws, &m); err != nil {
			return nil, err
		}
		switch {
		case m.ID == d.next && m.Error != nil:
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		case m.ID == d.next:
			return m.Result, nil
		case m.Method != "" && seen != nil:
			seen(m.Method)
		}
	}
}

// openPhone starts headless Chromium (browser) and returns its page, a phone's size, or skips
// the test when the browser cannot be driven.
func openPhone(t *testing.T, browser string) *devtools {
	t.Helper()
	// The profile is not t.TempDir: Chromium's helper processes may still write to it for a
	// moment after the browser is killed (seen in CI: "directory not empty").
	profile, err := os.MkdirTemp("", "cacchrome")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--remote-debugging-port=0", "--remote-allow-origins=*", "--user-data-dir="+profile, "about:blank")
	// Its own process group, killed whole: the browser and its helpers.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", browser, err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		for end := time.Now().Add(10 * time.Second); os.RemoveAll(profile) != nil && time.Now().Before(end); {
			time.Sleep(100 * time.Millisecond)
		}
	})
	found := make(chan string, 1)
	go func() { // "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID"; the rest is drained
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "DevTools listening on "); ok {
				found <- u
			}
		}
	}()
	var browserURL string
	select {
	case browserURL = <-found:
	case <-time.After(60 * time.Second):
		t.Fatal("chromium did not say where DevTools listens within 60 s")
	}
	host := strings.SplitN(strings.TrimPrefix(browserURL, "ws://"), "/", 2)[0]
	resp, err := http.Get("http://" + host + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var targets []struct{ Type, WebSocketDebuggerURL string }
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Type != "page" {
			continue
		}
		ws, err := websocket.Dial(tg.WebSocketDebuggerURL, "", "http://"+host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.Close() })
		ws.SetDeadline(time.Now().Add(90 * time.Second))
		d := &devtools{ws: ws}
		if _, err := d.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": true}, nil); err != nil {
			t.Fatal(err)
		}
		return d
	}
	t.Fatalf("chromium shows no page: %+v", targets)
	return nil
}

// open loads u and waits for its load event.
func (d *devtools) open(t *testing.T, u string) {
	t.Helper()
	loaded := false
	seen := func(e string) { loaded = loaded || e == "Page.loadEventFired" }
	if _, err := d.call("Page.enable", map[string]any{}, seen); err != nil {
		t.Fatal(err)
	}
	if _, err := d.call("Page.navigate", map[string]any{"url": u}, seen); err != nil {
		t.Fatal(err)
	}
	for !loaded {
		var m struct{ Method string }
		if err := websocket.JSON.Receive(d.ws, &m); err != nil {
			t.Fatalf("waiting for the page to load: %v", err)
		}
		seen(m.Method)
	}
}

// TestReplyFormFitsAThumb opens the form of a Reply link in headless Chromium as a phone of
// 390×844 CSS pixels: the page names the session as the popup does (Claude Code,
// session:window.pane, the project), nothing is wider than the screen, and the Send button
// is at least 44 px high and half the screen wide (a thumb's target), on the first screen.
// CAC_PHONE_SCREENSHOT=FILE.png keeps a screenshot of it.
func TestReplyFormFitsAThumb(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian: apt-get install chromium), so the reply form is not measured in a browser")
	}
	r := newRig(t, nil)
	d := openPhone(t, browser)
	d.open(t, r.button(t, notify.Resumed, "Reply").URL)
	res, err := d.call("Runtime.evaluate", map[string]any{"expression": measureForm, "returnByValue": true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Result struct{ Value string } }
	var got formBoxes
	if err := json.Unmarshal(res, &v); err != nil || json.Unmarshal([]byte(v.Result.Value), &got) != nil {
		t.Fatalf("the page measured %s (%v)", res, err)
	}
	if file := os.Getenv("CAC_PHONE_SCREENSHOT"); file != "" {
		shot, err := d.call("Page.captureScreenshot", map[string]any{"format": "png"}, nil)
		var png struct{ Data string }
		if err == nil {
			err = json.Unmarshal(shot, &png)
		}
		b, _ := base64.StdEncoding.DecodeString(png.Data)
		if err != nil || os.WriteFile(file, b, 0o644) != nil {
			t.Errorf("screenshot: %v", err)
		}
	}
	t.Logf("at %.0f×%.0f: Send %+v, text %+v, page %.0f wide", got.ViewW, got.ViewH, got.Send, got.Text, got.ScrollW)
	if got.Heading != "Reply to Claude Code" || !strings.Contains(got.Where, "main:1.0") || !strings.Contains(got.Where, "cac-tmux") {
		t.Errorf("the page names the session %q / %q, want Claude Code, main:1.0 and the project cac-tmux", got.Heading, got.Where)
	}
	if got.ViewW != 390 || got.ScrollW > got.ViewW {
		t.Errorf("the page is %.0f px wide in a %.0f px viewport; want 390 and no sideways scrolling", got.ScrollW, got.ViewW)
	}
	if s := got.Send; s.H < 44 || s.W < got.ViewW/2 || s.Y+s.H > got.ViewH || s.X < 0 || s.X+s.W > got.ViewW {
		t.Errorf("the Send button is %.0f×%.0f px at (%.0f,%.0f) in a %.0f×%.0f viewport; want at least 44 px high, half the width, on the first screen",
			s.W, s.H, s.X, s.Y, got.ViewW, got.ViewH)
	}
	if got.Text.W < got.ViewW*0.8 || got.Text.H < 88 {
		t.Errorf("the text box is %.0f×%.0f px; want most of the width and a few lines", got.Text.W, got.Text.H)
	}
}
