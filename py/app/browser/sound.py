"""Sounds made on the spot with the Web Audio API, and vibration where the device has it.

Nothing is downloaded: every sound is a few oscillator notes scheduled on the audio
clock (a rattle for a roll, a tap per square a piece hops, a falling buzz for a capture,
a rising chime for a piece home and a fanfare for a win), so they are offline as the rest
of the page is and cost no download. Browsers only start audio after the player has
touched the page: the audio context is made as the page boots (``prepare``: making the
first one starts the browser's audio output, which can take 50-100 ms, too long for a
press to wait), stays suspended where the browser wants a press, is resumed by the first
press (``wake``), and sounds asked for before that are skipped. Once it has run, the context
rests between sounds (index.html's ``ludoSound`` suspends it 2 s after the last note and the
next sound resumes it): a running context keeps the browser's audio threads busy in silence.
The notes of a sound go to ``ludoSound.play`` in one call. One switch, remembered in this
browser, mutes both sound and vibration. Any failure here is swallowed: the game never depends
on it.
"""

from __future__ import annotations

import random
from typing import Any

from pyscript import window

from . import storage
from .dom import js, on

Note = tuple[float, float, float, str, float, float | None]

SOUND_KEY = "courtyard-ludo/sound"


class Sound:
    def __init__(self) -> None:
        self.on = storage.get(SOUND_KEY) != "off"
        self.ctx: Any = None
        # the context has run (a press resumed it, or the browser started it unasked): from
        # then on a suspended context is one resting between sounds, which a sound may resume
        self.started = False
        self.random = random.Random()

    def bind(self, button: Any) -> None:
        """The switch: pressed means on; it says which, and is remembered."""
        def show() -> None:
            # a toggle keeps one name ("Sound") and says its state by aria-pressed; the word
            # on/off is for the eye only (a screen reader would hear "Sound off, pressed")
            button.setAttribute("aria-pressed", "true" if self.on else "false")
            button.querySelector(".sound-state").textContent = " on" if self.on else " off"

        def toggle(event: Any) -> None:
            self.on = not self.on
            storage.put(SOUND_KEY, "on" if self.on else "off")
            self.wake()
            show()

        on(button, "click", toggle)
        show()

    def prepare(self) -> None:
        """At boot: make the audio context (suspended until a press, in most browsers)."""
        if not self.on or self.ctx is not None:
            return
        try:
            maker = getattr(window, "AudioContext", None) or \
                getattr(window, "webkitAudioContext", None)
            if maker is not None:
                self.ctx = maker.new()
                if str(self.ctx.state) == "running":  # (no press needed here): rest until a sound
                    self.started = True
                    window.ludoSound.rest(self.ctx)
        except Exception:  # noqa: BLE001 - no audio is not an error
            self.ctx = None

    def wake(self) -> None:
        """Called from a press: make (or resume) the audio context while the browser allows."""
        if not self.on:
            return
        try:
            if self.ctx is None:
                self.prepare()
                if self.ctx is None:
                    return
            if str(self.ctx.state) == "suspended":
                self.ctx.resume()
                window.ludoSound.rest(self.ctx)  # (a press that plays no sound)
            self.started = True
        except Exception:  # noqa: BLE001 - no audio is not an error
            self.ctx = None

    def _play(self, notes: list[Note]) -> None:
        """Schedule ``notes`` (start s from now, frequency, duration s, oscillator type, peak
        gain, end frequency or None), unless muted or not yet allowed to sound."""
        if not self.on or self.ctx is None:
            return
        try:
            state = str(self.ctx.state)
            if state == "running" or state == "suspended" and self.started:
                self.started = True
                window.ludoSound.play(self.ctx, js(notes))
        except Exception:  # noqa: BLE001
            pass

    def roll(self) -> None:
        r = self.random
        self._play([(at, r.uniform(170, 420), 0.035, "square", 0.035, None)
                    for at in (0.0, 0.05, 0.1, 0.16, 0.23, 0.31)])

    def hops(self, steps: int, step_ms: float, delay_ms: float = 0.0) -> None:
        self._play([((delay_ms + (k + 0.9) * step_ms) / 1000, 620 if k % 2 else 540, 0.06,
                     "triangle", 0.07, None) for k in range(min(steps, 12))])

    def knock(self, delay_ms: float) -> None:
        self._play([(delay_ms / 1000, 420, 0.35, "sawtooth", 0.06, 90.0)])

    def home(self, delay_ms: float) -> None:
        self._play([(delay_ms / 1000 + k * 0.09, f, 0.16, "triangle", 0.08, None)
                    for k, f in enumerate((523.3, 659.3, 784.0, 1046.5))])

    def win(self) -> None:
        self._play([(k * 0.14, f, 0.3, "triangle", 0.09, None)
                    for k, f in enumerate((523.3, 659.3, 784.0, 1046.5, 784.0, 1046.5))])

    def vibrate(self, pattern: list[int]) -> None:
        """A short buzz (your turn, a capture) on devices that vibrate, once the player has
        touched the page (browsers refuse it before)."""
        if not self.on:
            return
        try:
            nav = window.navigator
            active = getattr(nav, "userActivation", None)
            if getattr(nav, "vibrate", None) is not None and active is not None \
                    and active.hasBeenActive:
                nav.vibrate(js(pattern))
        except Exception:  # noqa: BLE001
            pass
