"""TURN in real browsers: two pages that may use relayed paths only (`?ice=relay`, so
`iceTransportPolicy: "relay"`) play an online game through a real coturn, with the TURN
credentials the helper issued to each of them.

The helper here is `python -m server` started with `--turn-url` and LUDO_TURN_SECRET, as
docs/online.md configures it; coturn runs with the same settings as that configuration
(`use-auth-secret`), on this machine's non-loopback address (Chromium gathers candidates only
on a non-loopback interface, and relays to peers at that address). Everything goes through the
app's own code: the page gets the ICE servers from the helper's `welcome` and hands them to
`RTCPeerConnection` in app/browser/rtc.py. With relay only, a data channel can open only
through coturn; coturn's log shows each page's own credentials (`<expiry>:<its peer id>`).
"""

from __future__ import annotations

import re
import secrets
import shutil
import socket
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from test_online import BOOT_MS, facts, play_to_end, same_position, start

from server.app import default_root
from server.testing import TurnServer, running_server

RELAY_PARAMS = "?auto_delay=0&pace_ms=0&ice=relay"
ACTIONS = 12  # enough for game messages in both directions

# Keeps every RTCPeerConnection the app makes, with the configuration it was given, so that the
# test can read which ICE servers and policy the app passed and which path was chosen.
RECORD_CONNECTIONS = """
(() => {
  const Native = window.RTCPeerConnection;
  window.__connections = [];
  window.RTCPeerConnection = class extends Native {
    constructor(config) {
      super(config);
      window.__connections.push({config: JSON.parse(JSON.stringify(config || {})), pc: this});
    }
  };
})();
"""

# For each connected RTCPeerConnection: its configuration and the types of the candidates of
# the pair in use (RTCIceCandidatePairStats, RTCIceCandidateStats).
PATHS = """
async () => {
  const paths = [];
  for (const {config, pc} of window.__connections) {
    if (pc.connectionState !== "connected") continue;
    const stats = await pc.getStats();
    let pair = null;
    stats.forEach(s => {
      if (s.type === "transport" && s.selectedCandidatePairId) {
        pair = stats.get(s.selectedCandidatePairId);
      }
    });
    paths.push({
      policy: config.iceTransportPolicy, servers: config.iceServers,
      local: pair ? stats.get(pair.localCandidateId).candidateType : null,
      remote: pair ? stats.get(pair.remoteCandidateId).candidateType : null,
      bytes: pair ? pair.bytesSent : 0,
    });
  }
  return paths;
}
"""


def _interface_address() -> str | None:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
            address = str(s.getsockname()[0])
    except OSError:
        return None
    return None if address.startswith("127.") else address


ADDRESS = _interface_address()

pytestmark = [pytest.mark.skipif(ADDRESS is None,
                                 reason="WebRTC needs a non-loopback network interface"),
              pytest.mark.xdist_group("many-browsers")]  # see test_online.py


@pytest.fixture
def turn() -> Iterator[TurnServer]:
    if shutil.which("turnserver") is None:
        message = "needs turnserver (Debian package coturn; `make test` installs it)"
        if __import__("os").environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    assert ADDRESS is not None
    with TurnServer(secrets.token_hex(16), ip=ADDRESS) as server:
        yield server


def open_recorded(browser: Browser, url: str) -> Page:
    context = browser.new_context()
    context.add_init_script(RECORD_CONNECTIONS)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=BOOT_MS)
    return page


def test_two_pages_play_over_turn_only_with_the_credentials_the_helper_issued(
        browser: Browser, turn: TurnServer) -> None:
    args = ("--turn-url", turn.url)
    with running_server(default_root(), args=args, env={"LUDO_TURN_SECRET": turn.secret}) as url:
        host = open_recorded(browser, url + RELAY_PARAMS)
        host.check("input[name='players'][value='2']")
        for colour in ("red", "green", "yellow", "blue"):
            host.locator(f"input[name='seat'][value='{colour}']").set_checked(
                colour in ("red", "yellow"))
        host.select_option("select[name='kind-yellow']", "online")
        host.fill("input[name='name-red']", "Hana")
        host.click("#btn-start")
        host.wait_for_selector("#screen-room:not([hidden])")
        host.wait_for_function(
            "document.getElementById('room-status').textContent === 'Connected.'")
        link = host.input_value("#room-link")
        assert "ice=relay" in link.split("#")[0]  # the room's link keeps the page's query
        guest = open_recorded(browser, link)
        guest.wait_for_selector("#screen-room:not([hidden]) #room-seats li", timeout=60_000)
        guest.fill("#room-name", "Yusuf")
        guest.click("button.take[data-seat='yellow']")
        guest.wait_for_function("JSON.parse(window.ludo.online()).seat === 'yellow'")
        start(host, [guest])

        play_to_end(host, [host, guest], limit_s=300, max_actions=ACTIONS)
        same_position([host, guest])
        assert facts(guest)["problem"] is None and facts(guest)["connected"]
        assert host.errors == [] and guest.errors == []
        paths = {"host": host.evaluate(PATHS), "guest": guest.evaluate(PATHS)}

    log = turn.log()
    issued = set()
    for side, found in paths.items():
        # The one data channel of each page went through coturn on both ends, with the policy
        # and the TURN server (its own credentials) that the page got from the helper.
        assert len(found) == 1, (side, found)
        path = found[0]
        assert path["policy"] == "relay", path
        assert (path["local"], path["remote"]) == ("relay", "relay"), path
        assert path["bytes"] > 0, path
        turns = [s for s in path["servers"] if turn.url in s["urls"]]
        assert len(turns) == 1 and turns[0]["username"] in log, (path, log[-3000:])
        issued.add(turns[0]["username"])
    assert len(issued) == 2  # one set of credentials per peer
    # Each page allocated a relay with its own helper-issued credentials: "<expiry>:<peer id>".
    users = set(re.findall(r"username=<?(\d{10}:[0-9a-f]{12})>?", log))
    assert len({user.split(":")[1] for user in users}) >= 2, log[-3000:]
    assert all(int(user.split(":")[0]) > time.time() for user in users)
    assert "ALLOCATE processed, success" in log
    assert re.search(r"CHANNEL_BIND processed, success|CREATE_PERMISSION processed, success",
                     log), log[-3000:]
