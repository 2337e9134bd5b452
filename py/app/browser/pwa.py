"""Offline and installable: the service worker, the update prompt, Install, the offline badge.

`start(controller)` runs at the end of Controller.boot(), once the game is on screen, so the
service worker's precache (the whole 14 MB runtime, revalidated against the HTTP cache the page
has just filled) never competes with the first boot.

Updates: sw.js (tools/build_sw.py) installs a new version in the background and then waits; it
never activates itself while a page of the old version is open. This module shows
#update-banner ("Update available", Reload) when a new version is waiting. Only when the player
accepts does it save the game, tell the waiting worker to take over (SKIP_WAITING) and reload
on `controllerchange`, back into the same saved game. A page that did not ask (another tab)
keeps running and shows the banner instead, so a game is never interrupted by an update the
player did not accept.

No room: while a new version installs, the device holds two copies of the app (about 44 MB).
When that is more than the browser allows, the install fails, the old version stays, and every
later check fails the same way. sw.js then posts INSTALL_FAILED with the error's name; for a
QuotaExceededError the same banner says there is no room and asks the player to free some space
and reload, once per version (remembered in localStorage, so the checks every 30 minutes and
the next starts do not repeat it). When the very first install fails for room, nothing is stored
and the game works only online: the banner says so, once per version as well. The worker's
messages can come before Python is up (an update checked for as the page opens): index.html
keeps them in `window.ludoWorkerMessages` until `register` listens.

Damaged copy: offline, a stylesheet damaged in the worker's cache is served all the same (the
game works, looking wrong) and the worker posts DAMAGED; the banner says that connecting once
repairs it. (A damaged file that stops the boot is index.html's boot watch's, before Python.)

Install: `beforeinstallprompt` (Chromium browsers) shows #btn-install on the "Make yourself at
home" page; elsewhere that page's per-platform steps are the way. index.html keeps an early
event in `window.ludoInstallPrompt`, as it can fire before Python is up.

Offline: #net-status is shown while `navigator.onLine` is false.

`?sw=off` in the URL unregisters the worker and drops its caches (for development: with the
worker, the page runs the cached build until the next sw.js arrives).

Another copy of the app on the same origin (in a folder of its own: docs/offline.md, "Served
from a folder") is left alone: the worker is registered for this page's folder, `?sw=off`
removes only that folder's worker and caches (the worker names its caches after its scope,
and tells only the pages of its scope: tools/sw_template.js).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from pyscript import document, window
from pyscript.ffi import is_none

from . import storage
from .dom import Timeout, keep, on, set_text
from .dom import el as _el
from .dom import js as _js

SW_URL = "./sw.js"
SW_SCOPE = "./"
# The names of the app's caches (tools/sw_template.js): "courtyard-ludo-<version>@<scope path>",
# or "courtyard-ludo-<version>" as workers named them before the scope was in the name.
CACHE_NAME = re.compile(r"courtyard-ludo-[0-9a-f]+(?:@(.*))?", re.DOTALL)
UPDATE_CHECK_MS = 30 * 60 * 1000  # also checked on coming back online and on focus
RELOAD_FALLBACK_MS = 4000  # reload anyway if the new worker never takes over
UPDATE_TEXT = "Update available"
NO_ROOM_TEXT = ("An update is available but this device has no room to store it. "
                "Free some storage space, then reload.")
# The first install failed for room: nothing is stored, so the game works only while online.
NO_ROOM_OFFLINE_TEXT = ("This device has no room to keep the game for offline play: it plays "
                        "only while online. Free some storage space, then reload.")
NO_ROOM_KEY = "courtyard-ludo/no-room-told"  # the last version the player was told about
# The install screen's word on this device's offline copy, under the seed's "Open the game
# online once to prepare offline play.", which a player read as still to do when it was done
READY_TEXT = "This device is ready: the game opens and plays here with no network."
PREPARING_TEXT = "Preparing offline play on this device…"
UNSUPPORTED_TEXT = ("This browser cannot keep the game for offline play at this address (it "
                    "needs https, or this machine's own address): the game plays only while "
                    "online.")
NOT_PREPARED_TEXT = ("Offline play could not be prepared on this device: the game plays only "
                     "while online.")
SW_OFF_TEXT = "Offline play is switched off for this page (?sw=off)."
DAMAGED_TEXT = ("The copy of Courtyard Ludo on this device is damaged, so the game may look "
                "wrong. Connect to the internet once and reload: that repairs it.")

_started: Pwa | None = None


def _has(obj: Any, name: str) -> bool:
    return bool(window.Reflect.has(obj, name))


def cache_scope(name: str) -> str | None:
    """The scope path a cache of the app was filled for ("/" for a copy at the site's root); ""
    for one named without its scope (by an older worker), None for a cache that is not the
    app's."""
    match = CACHE_NAME.fullmatch(name)
    if match is None:
        return None
    return match.group(1) or ""


async def _is_own_cache(name: str, scope: Any) -> bool:
    """Whether the cache `name` belongs to the copy of the app whose scope is `scope` (a URL)."""
    owner = cache_scope(name)
    if owner == "":  # named by an older worker: this copy's if it holds this copy's page
        cache = await window.caches.open(name)
        return not is_none(await cache.match(window.URL.new("./index.html", scope.href).href))
    return owner == str(scope.pathname)


def _warn(message: str) -> None:
    # A warning, not an error: offline support failing must not look like the game failing.
    window.console.warn(f"Courtyard Ludo offline support: {message}")


class Pwa:
    def __init__(self, controller: Any) -> None:
        self.controller = controller
        self.registration: Any = None
        self.accepted = False  # the player asked for the update in this tab
        self.had_controller = False
        self.install_prompt: Any = None

    def _on(self, target: Any, event: str, handler: Any) -> None:
        on(target, event, handler)

    def _later(self, delay_ms: float, fn: Any) -> None:
        Timeout(fn, delay_ms)

    # -- start ---------------------------------------------------------------------------------

    def start(self) -> None:
        self._watch_network()
        self._watch_install()
        self._on(_el("btn-update"), "click", self.on_update_accepted)
        params = window.URLSearchParams.new(window.location.search)
        off = str(params.get("sw")) == "off"
        if not (window.isSecureContext and _has(window.navigator, "serviceWorker")):
            self.say_offline(UNSUPPORTED_TEXT)
            return  # plain http on another host, or an old browser: online only
        self.say_offline(SW_OFF_TEXT if off else PREPARING_TEXT)
        task = self.unregister() if off else self.register()
        asyncio.ensure_future(task)

    # -- the install screen's word on the offline copy -------------------------------------------

    def say_offline(self, text: str) -> None:
        # a status region: the same words written again (each controller change) are not
        # said again
        set_text("offline-ready", text)

    def own_controller(self) -> bool:
        """Whether this copy's own worker controls the page: it takes control only once it has
        stored every file (a copy of the app in a folder above this one may control the page
        with a worker that keeps none of this copy's files)."""
        controller = window.navigator.serviceWorker.controller
        if is_none(controller):
            return False
        own = window.URL.new(SW_URL, window.location.href)
        return str(controller.scriptURL) == str(own.href)

    def check_ready(self) -> None:
        if self.own_controller():
            self.say_offline(READY_TEXT)

    # -- offline badge --------------------------------------------------------------------------

    def _watch_network(self) -> None:
        self._on(window, "online", lambda e: self.on_network(True))
        self._on(window, "offline", lambda e: self.on_network(False))
        self.on_network(bool(window.navigator.onLine))

    def on_network(self, online: bool) -> None:
        _el("net-status").hidden = online
        if online:
            self.check_for_update()

    # -- install button -------------------------------------------------------------------------

    def _watch_install(self) -> None:
        self._on(window, "beforeinstallprompt", self.on_before_install)
        self._on(window, "appinstalled", lambda e: self._set_install(None))
        self._on(_el("btn-install"), "click", lambda e: asyncio.ensure_future(self.install()))
        early = window.ludoInstallPrompt if _has(window, "ludoInstallPrompt") else None
        if early is not None and not is_none(early):
            self._set_install(early)

    def on_before_install(self, event: Any) -> None:
        event.preventDefault()  # our button instead of the browser's mini-infobar
        self._set_install(event)

    def _set_install(self, event: Any) -> None:
        self.install_prompt = event
        _el("btn-install").hidden = event is None

    async def install(self) -> None:
        event = self.install_prompt
        if event is None:
            return
        self._set_install(None)  # a prompt event can be used once
        try:
            await event.prompt()
            await event.userChoice
        except Exception as exc:  # noqa: BLE001 - the browser refused; the steps still apply
            _warn(f"install prompt failed: {exc}")

    # -- service worker -------------------------------------------------------------------------

    async def register(self) -> None:
        container = window.navigator.serviceWorker
        self.had_controller = not is_none(container.controller)
        self._on(container, "controllerchange", self.on_controller_change)
        self._on(container, "message", lambda event: self.on_worker_message(event.data))
        early = window.ludoWorkerMessages if _has(window, "ludoWorkerMessages") else None
        window.ludoWorkerMessages = None  # index.html's listener keeps no more from here on
        for data in early if early is not None and not is_none(early) else ():
            self.on_worker_message(data)
        try:
            registration = await container.register(
                SW_URL, _js({"scope": SW_SCOPE, "updateViaCache": "none"})
            )
        except Exception as exc:  # noqa: BLE001 - e.g. sw.js missing: the game still works
            _warn(f"service worker not registered: {exc}")
            self.say_offline(NOT_PREPARED_TEXT)
            return
        if registration is None or is_none(registration):
            # Not a registration: a browser or an automation tool that blocks service workers
            # can answer register() with nothing at all. Then there is nothing to watch.
            _warn("service workers are blocked in this browser: the game works online only")
            self.say_offline(UNSUPPORTED_TEXT)
            return
        self.check_ready()
        self.registration = registration
        self._on(registration, "updatefound", self.on_update_found)
        if not is_none(registration.waiting) and self.had_controller:
            self.show_banner()
        window.setInterval(keep(lambda *_: self.check_for_update()), UPDATE_CHECK_MS)
        self._on(document, "visibilitychange", lambda e: self._on_visible())

    def _on_visible(self) -> None:
        if str(document.visibilityState) == "visible":
            self.check_for_update()

    def check_for_update(self) -> None:
        if self.registration is not None:
            asyncio.ensure_future(self._update())

    async def _update(self) -> None:
        try:
            await self.registration.update()
        except Exception:  # noqa: BLE001 - offline, or the server is down: try again later
            pass

    def on_update_found(self, event: Any) -> None:
        worker = self.registration.installing
        if is_none(worker):
            return

        def on_state(*_: Any) -> None:
            # "installed" with a controller: a new version is waiting. Without one, this is
            # the first install, which simply takes over (nothing to update from).
            if str(worker.state) == "installed" and \
                    not is_none(window.navigator.serviceWorker.controller):
                self.show_banner()

        self._on(worker, "statechange", on_state)

    def show_banner(self, text: str = UPDATE_TEXT) -> None:
        _el("update-text").textContent = text
        _el("btn-update").disabled = False  # Reload: saves the game and reloads
        _el("update-banner").hidden = False

    def on_worker_message(self, data: Any) -> None:
        kind = "" if data is None or is_none(data) else str(getattr(data, "type", ""))
        if kind == "DAMAGED":
            self.show_banner(DAMAGED_TEXT)
        elif kind == "INSTALL_FAILED":
            self.on_install_failed(data)

    def on_install_failed(self, data: Any) -> None:
        if str(getattr(data, "error", "")) != "QuotaExceededError":
            return  # e.g. a deployment caught half-way: nothing the player can do
        # Without a controller this was the first install: there is no old version to keep,
        # and no offline copy at all, which the player would only find out offline.
        first_install = is_none(window.navigator.serviceWorker.controller)
        if first_install:  # said on the install screen at every try, over the board once
            self.say_offline(NO_ROOM_OFFLINE_TEXT)
        version = str(getattr(data, "version", ""))
        if storage.get(NO_ROOM_KEY) == version:
            return
        storage.put(NO_ROOM_KEY, version)  # (refused: this tab remembers it, a new tab tells)
        self.show_no_room(first_install)

    def show_no_room(self, first_install: bool = False) -> None:
        if _el("update-banner").hidden:  # (a new version waiting takes precedence)
            self.show_banner(NO_ROOM_OFFLINE_TEXT if first_install else NO_ROOM_TEXT)

    def on_update_accepted(self, event: Any) -> None:
        self.accepted = True
        _el("btn-update").disabled = True
        try:
            self.controller.save()
        except Exception as exc:  # noqa: BLE001 - still update; the last autosave stands
            _warn(f"could not save before updating: {exc}")
        waiting = None if self.registration is None else self.registration.waiting
        if waiting is None or is_none(waiting):
            window.location.reload()
            return
        waiting.postMessage(_js({"type": "SKIP_WAITING"}))
        self._later(RELOAD_FALLBACK_MS, lambda: window.location.reload())

    def on_controller_change(self, event: Any) -> None:
        self.check_ready()
        if self.accepted:
            window.location.reload()
        elif self.had_controller:
            # Another tab accepted an update: this page still runs the old version.
            self.show_banner()
        self.had_controller = True

    async def unregister(self) -> None:
        scope = window.URL.new(SW_SCOPE, window.location.href)  # the page's folder
        try:
            container = window.navigator.serviceWorker
            # (getRegistration answers with the closest enclosing scope: that of a copy of the
            # app in a folder above this one, when this one has none. That one is not ours.)
            registration = await container.getRegistration(SW_SCOPE)
            if not is_none(registration) and str(registration.scope) == str(scope.href):
                await registration.unregister()
            for name in await window.caches.keys():
                if await _is_own_cache(str(name), scope):
                    await window.caches.delete(name)
        except Exception as exc:  # noqa: BLE001 - storage refused (a private window): no fault
            _warn(f"service worker not removed: {exc}")


def start(controller: Any) -> Pwa:
    """Wire offline support for this page (once); called after the game has booted."""
    global _started
    if _started is None:
        _started = Pwa(controller)
        _started.start()
    return _started
