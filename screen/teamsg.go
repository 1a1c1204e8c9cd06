package screen

import (
	"go/token"
	"reflect"

	tea "charm.land/bubbletea/v2"
)

// What Bubble Tea's commands ask of the terminal arrives as messages, most
// of them of types package tea does not export (backgroundColorMsg,
// sequenceMsg, clearScreenMsg…); tea.Program acts on them before it hands
// them to Update. Screen does the same for the ones a game screen may use,
// and reports the others (see Options.Unsupported).
//
// This file is the one place that knows those types, and it learns them
// by reflection, from the commands that make them: Bubble Tea v2 exports
// no type, interface or function to tell them apart, and tea.Sequence's
// commands can be read out of its message only by converting it to
// []tea.Cmd. Learning the types from the commands rather than naming them
// holds the table to whatever they are called in the Bubble Tea version
// built with; TestScreenUnsupported and TestScreenSupported fail if one
// is missed.

// control is what the screen does for a command's message: act, or
// nothing but a report if act is unsupported.
type control struct {
	command string // the command, as a model calls it
	act     action
}

type action int

const (
	unsupported action = iota
	askBackgroundColor
	askForegroundColor
	askCursorPosition
	tellWindowSize
	redraw
)

var noop tea.Cmd = func() tea.Msg { return nil }

// controls are keyed by the message's type.
var controls = map[reflect.Type]control{
	typeOf(tea.RequestBackgroundColor()): {"tea.RequestBackgroundColor", askBackgroundColor},
	typeOf(tea.RequestForegroundColor()): {"tea.RequestForegroundColor", askForegroundColor},
	typeOf(tea.RequestCursorPosition()):  {"tea.RequestCursorPosition", askCursorPosition},
	typeOf(tea.RequestWindowSize()):      {"tea.RequestWindowSize", tellWindowSize},
	typeOf(tea.ClearScreen()):            {"tea.ClearScreen", redraw},

	typeOf(tea.Println("")()):              {command: "tea.Println"}, // and tea.Printf
	typeOf(tea.Raw("")()):                  {command: "tea.Raw"},
	typeOf(tea.Exec(nil, nil)()):           {command: "tea.Exec"},
	typeOf(tea.Suspend()):                  {command: "tea.Suspend"},
	typeOf(tea.SetClipboard("")()):         {command: "tea.SetClipboard"},
	typeOf(tea.ReadClipboard()):            {command: "tea.ReadClipboard"},
	typeOf(tea.SetPrimaryClipboard("")()):  {command: "tea.SetPrimaryClipboard"},
	typeOf(tea.ReadPrimaryClipboard()):     {command: "tea.ReadPrimaryClipboard"},
	typeOf(tea.RequestCursorColor()):       {command: "tea.RequestCursorColor"},
	typeOf(tea.RequestTerminalVersion()):   {command: "tea.RequestTerminalVersion"},
	typeOf(tea.RequestCapability("RGB")()): {command: "tea.RequestCapability"},
}

func typeOf(msg tea.Msg) reflect.Type { return reflect.TypeOf(msg) }

var (
	// sequenceType is tea.Sequence's message: its commands, to be run
	// one at a time.
	sequenceType = typeOf(tea.Sequence(noop, noop)())
	cmdsType     = reflect.TypeFor[[]tea.Cmd]()
	teaPackage   = reflect.TypeFor[tea.QuitMsg]().PkgPath()
)

// sequenceOf returns the commands of a tea.Sequence message.
func sequenceOf(msg tea.Msg) ([]tea.Cmd, bool) {
	if typeOf(msg) != sequenceType {
		return nil, false
	}
	return reflect.ValueOf(msg).Convert(cmdsType).Interface().([]tea.Cmd), true
}

// controlOf is what the screen does for msg, if it is a command's
// message the table knows.
func controlOf(msg tea.Msg) (control, bool) {
	c, ok := controls[typeOf(msg)]
	return c, ok
}

// teaInternal names msg ("tea.xxxMsg") if it is of an unexported type of
// package tea that the table does not know: a command a newer Bubble Tea
// added, which tea.Program would act on.
func teaInternal(msg tea.Msg) (string, bool) {
	t := typeOf(msg)
	if t == nil || t.PkgPath() != teaPackage || token.IsExported(t.Name()) {
		return "", false
	}
	return "tea." + t.Name(), true
}
