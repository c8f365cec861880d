"""Run-time options (docs/options.md): the switches pvec reads from the environment at
pvec_init, listed with :func:`options`, printed with :func:`options_text` and changed with
:func:`set_option`. Local and callable at any time, before :func:`pvec.init` too (the values
are then the defaults, the environment not yet read, and a value set wins over it)."""

import ctypes
from dataclasses import dataclass

from .capi import Error, OptionInfo, OptionSource, Status, api, call

__all__ = ["Option", "options", "options_text", "set_option"]


@dataclass(frozen=True)
class Option:
    """One run-time option (pvec_option_info) as Python values. ``value`` is the value in use,
    written as the environment variable takes it ("auto", "0", "1", a device ordinal), as
    ``default`` is; ``source`` says where it came from (:class:`pvec.OptionSource`: DEFAULT,
    ENVIRONMENT, SET)."""

    name: str
    accepts: str
    default: str
    meaning: str
    source: OptionSource
    value: str


def _text(raw):
    return raw.decode("utf-8", "replace") if raw else ""


@api("pvec.options")
def options():
    """Every run-time option, in pvec's order: a list of :class:`Option` records (name,
    accepts, default, meaning, source, value)."""
    count = ctypes.c_int()
    call("pvec_options_get_count", ctypes.byref(count))
    out = []
    for k in range(count.value):
        info = OptionInfo()
        info.struct_size = ctypes.sizeof(OptionInfo)
        call("pvec_options_get_info", k, ctypes.byref(info))
        out.append(Option(_text(info.name), _text(info.accepts), _text(info.default_value),
                          _text(info.meaning), OptionSource(info.source),
                          "auto" if info.value < 0 else str(info.value)))
    return out


@api("pvec.options_text")
def options_text():
    """pvec_options_get_text: every option in use, one line each,
    "PVEC_IPC=1 (environment; default 1): meaning", for a run's log."""
    text = ctypes.c_char_p()
    call("pvec_options_get_text", ctypes.byref(text))
    return _text(text.value)


def _encode(what, value):
    """value as the C string set_option passes (None stays NULL)."""
    if value is None:
        return None
    if isinstance(value, bool):
        value = int(value)
    text = value if isinstance(value, str) else str(value)
    if "\0" in text:
        raise Error(Status.INVALID_ARGUMENT, "%s %r contains a NUL character" % (what, text),
                    "set_option")
    return text.encode("utf-8")


@api("pvec.set_option")
def set_option(name, value):
    """Set option name ("PVEC_STAGED_TRANSFER") to value, as the environment variable takes it:
    a str ("auto", "0"), an int, or a bool (True is "1"); None or "" sets it back to its
    default. Local: set it alike on every rank. It takes effect for later calls: PVEC_IPC and
    PVEC_SHM when a vector is created, PVEC_DEVICE at pvec.init only, the others at each call;
    set before pvec.init, it wins over the environment. Raises :class:`pvec.Error`
    INVALID_ARGUMENT with pvec's message (no such option, naming the options; a value the
    option does not take, saying what it takes) and changes nothing."""
    call("pvec_options_set", _encode("name", name), _encode("value", value))
