package event

import tea "charm.land/bubbletea/v2"

// MaxHeldKeys bounds the keys a screen holds while a move commits. A
// server's screen lets 50 keys a second through, as many again at once,
// and a commit returns within the game service's write timeout (5 s):
// about 300 keys at worst. Keys past the bound are dropped, as keys past
// the rate are.
const MaxHeldKeys = 512

// Held is what a screen that plays (the game screen, the race screen)
// keeps while a move commits in a tea.Cmd: the messages that read or
// change the game, or end the session, handled in arrival order once the
// commit returns, as if Update had waited for it. The zero Held is empty.
type Held struct {
	msgs []tea.Msg
	keys int // how many of msgs are keys, at most MaxHeldKeys
}

// Hold keeps msg until Release; a key past MaxHeldKeys is dropped.
func (h *Held) Hold(msg tea.Msg) {
	if _, ok := msg.(tea.KeyPressMsg); ok {
		if h.keys == MaxHeldKeys {
			return
		}
		h.keys++
	}
	h.msgs = append(h.msgs, msg)
}

// Len is how many messages are held, Keys how many of them are keys.
func (h *Held) Len() int  { return len(h.msgs) }
func (h *Held) Keys() int { return h.keys }

// Release hands the held messages to update in order, until stop reports
// true after one (it started another move, whose commit the rest wait
// for, or ended the session); it returns their commands. Each message
// leaves the queue before update sees it, so an update that drops the
// queue (the session ends) or holds more leaves it whole.
func (h *Held) Release(update func(tea.Msg) tea.Cmd, stop func() bool) tea.Cmd {
	var cmds []tea.Cmd
	for len(h.msgs) > 0 && !stop() {
		msg := h.msgs[0]
		h.msgs[0] = nil
		h.msgs = h.msgs[1:]
		if _, ok := msg.(tea.KeyPressMsg); ok {
			h.keys--
		}
		cmds = append(cmds, update(msg))
	}
	return tea.Batch(cmds...)
}

// Drop lets every held message go: the session ends.
func (h *Held) Drop() { h.msgs, h.keys = nil, 0 }
