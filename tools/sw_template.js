/* Service worker template: tools/build_sw.py fills in BUILD and writes sw.js next to the page.
 *
 * BUILD = {name, version, cache, index, files: {"./path": "sha256 prefix", ...}, types}, where
 * files lists every file the page loads, relative to this script, with a hash of its content,
 * cache = name + "-" + version, version being a hash of this code and of that list, and types
 * maps each of their extensions to the Content-Type they are served with.
 *
 * Cache Storage belongs to the origin, not to a worker's scope, and one origin may hold several
 * copies of the app in folders of their own (a static host's /courtyard-ludo/ beside a
 * /courtyard-ludo-preview/). So the cache this worker fills is named BUILD.cache + "@" + its
 * scope's path ("courtyard-ludo-1a2b…@/courtyard-ludo/"), and it deletes, reuses and tells only
 * what is its own scope's: another copy's caches, workers and pages are never touched.
 *
 * - install: fills the cache for this version. A file whose hash is unchanged is copied from
 *   an older cache of ours; anything else is fetched (revalidating the HTTP cache) and its
 *   content checked against the hash, so a server half-way through a deployment can never
 *   produce a cache that mixes versions: the install fails and the old version stays.
 *   It never calls skipWaiting by itself: a new version waits until the page asks for it
 *   (the player accepted "Update available") or until no page of the old version is open.
 * - activate: deletes our older caches, then takes control of open pages.
 * - fetch: the precached files come from the cache (offline first), always with status 200 and
 *   the Content-Type of their extension (`asServed`), whatever the stored copy says; `ignoreSearch`, so
 *   "./?room=abc" or "./index.html?x=1" open offline too. Everything else goes to the network
 *   untouched. A listed file missing from the cache is stored again once fetched. The page and
 *   the stylesheets are checked against their hashes each time they are served (see
 *   `checkedAsServed`); every other file only when a page could not start (CHECK_ALL).
 *   Offline, a damaged page is replaced by a short one that says so; a damaged stylesheet is
 *   served, and the page gets {type: "DAMAGED"} (it looks wrong; pwa.py says why).
 * - install failure: posts {type: "INSTALL_FAILED", version, error: the error's name, e.g.
 *   "QuotaExceededError"} to every window of the scope, then fails as before.
 * - message {type: "SKIP_WAITING"}: activate now; {type: "VERSION"} answers on the port given;
 *   {type: "CHECK", url}: the page found that cached file wrong (boot.mjs, when the browser
 *   refuses the Pyodide snapshot): check it against its hash, and fetch and store it again.
 *   {type: "CHECK_ALL"}: the page could not start (index.html's boot watch): check every
 *   cached file so, and answer on the port given {repaired: [...], damaged: [...]}, the files
 *   fetched and stored again and those still damaged (offline, or the server has moved on).
 *   One check runs at a time: CHECK_ALLs (or CHECKs of one file) that come while it runs get
 *   its answer.
 */
"use strict";

const BUILD = __BUILD__;

const url = (relative) => new URL(relative, self.location.href).href;
const INDEX = url(BUILD.index);
const SCOPE = self.registration.scope;
const SCOPE_PATH = new URL(SCOPE).pathname;
const CACHE = `${BUILD.cache}@${SCOPE_PATH}`;
// "<name>-<version>@<scope path>"; before caches carried their scope: "<name>-<version>".
const CACHE_NAME = new RegExp(`^${BUILD.name}-[0-9a-f]+(?:@(.*))?$`, "s");
// Stored in the cache last, so its presence means the cache is complete; it records which
// version of each file the cache holds (for the next version's install to reuse) and which
// files this install had to download.
const MANIFEST = url("./__precache__.json");
const FILES = new Map(Object.entries(BUILD.files).map(([file, hash]) => [url(file), hash]));

// Whether the cache `name` is one of this scope's (any version): named with this scope, or
// named the older way, without a scope, and holding this scope's page (the caches of a worker
// from before the scope was in the name, which this one takes over and deletes in its turn).
async function ours(name) {
  const match = CACHE_NAME.exec(name);
  if (!match) return false;
  if (match[1] !== undefined) return match[1] === SCOPE_PATH;
  return Boolean(await (await caches.open(name)).match(INDEX));
}

async function sha256(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", buffer));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function intact(response, hash) {
  try {
    return (await sha256(await response.clone().arrayBuffer())).startsWith(hash);
  } catch {
    return false; // a body that cannot be read is no better than a wrong one
  }
}

// url -> {cache, hash} of copies held by our older, complete caches.
async function reusable() {
  const found = new Map();
  for (const name of await caches.keys()) {
    if (name === CACHE || !(await ours(name))) continue;
    const cache = await caches.open(name);
    const manifest = await cache.match(MANIFEST);
    if (!manifest) continue;
    // A record that is not what precache() writes (damaged, or stored by another script of
    // the origin) only costs its files a download: before, it made every later install throw,
    // and the game stayed on its old version for good (no activation came to delete it).
    let files;
    try {
      files = (await manifest.json()).files;
    } catch {
      continue;
    }
    if (!files || typeof files !== "object" || Array.isArray(files)) continue;
    for (const [file, hash] of Object.entries(files)) {
      if (typeof hash === "string" && !found.has(file)) found.set(file, { cache, hash });
    }
  }
  return found;
}

// Puts one file into the cache; returns whether it had to be fetched.
async function store(cache, file, hash, old, signal) {
  const previous = old.get(file);
  if (previous && previous.hash === hash) {
    const copy = await previous.cache.match(file);
    // Checked all the same (once per version): a copy damaged in the older cache would
    // otherwise live on in this one.
    if (copy && (await intact(copy, hash))) {
      await cache.put(file, copy);
      return false;
    }
  }
  const response = await fetch(file, { cache: "no-cache", credentials: "same-origin", signal });
  if (!response.ok || response.redirected) {
    throw new Error(`precache: ${file} answered ${response.status}`);
  }
  const actual = await sha256(await response.clone().arrayBuffer());
  if (!actual.startsWith(hash)) {
    throw new Error(`precache: ${file} does not match this sw.js (rebuild it with tools/build_sw.py)`);
  }
  await cache.put(file, response);
  return true;
}

async function precache() {
  const cache = await caches.open(CACHE);
  if (await cache.match(MANIFEST)) return; // complete already
  // The first failure cancels the downloads still going, so a build whose files do not match
  // its sw.js (e.g. py/ edited after the build) fails fast instead of fetching 14 MB each time.
  const abort = new AbortController();
  try {
    const old = await reusable();
    const entries = [...FILES];
    const fetched = await Promise.all(
      entries.map(([file, hash]) => store(cache, file, hash, old, abort.signal)),
    );
    const record = JSON.stringify({
      version: BUILD.version,
      files: Object.fromEntries(FILES),
      fetched: entries.filter((entry, i) => fetched[i]).map(([file]) => file),
    });
    await cache.put(MANIFEST, new Response(record, { headers: { "Content-Type": "application/json" } }));
  } catch (error) {
    abort.abort();
    await caches.delete(CACHE);
    throw error;
  }
}

// A failed install leaves the old version in charge and is retried at every update check; it is
// silent unless the pages are told why. They can act on some reasons: a QuotaExceededError
// (the device has no room for a second copy of the app) is one the player can fix.
async function tellInstallFailed(error) {
  const name = error && error.name ? String(error.name) : "Error";
  // (Uncontrolled windows include every page of the origin: only those of this scope are told.)
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  for (const client of windows) {
    if (!client.url.startsWith(SCOPE)) continue;
    client.postMessage({ type: "INSTALL_FAILED", version: BUILD.version, error: name });
  }
}

self.addEventListener("install", (event) => {
  event.waitUntil(precache().catch(async (error) => {
    await tellInstallFailed(error).catch(() => {});
    throw error; // the install still fails
  }));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name !== CACHE && (await ours(name))) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

// Stores `response` for `file` if it is this build's version of it, and the cache is still
// whole (not one that `?sw=off` dropped and a later caches.open made anew, empty); returns
// whether it did.
async function restore(cache, file, response) {
  if (response.ok && !response.redirected && (await intact(response, FILES.get(file)))
      && (await cache.match(MANIFEST))) {
    await cache.put(file, response);
    return true;
  }
  return false;
}

// The page and the stylesheets are checked each time they are served. The page holds the
// boot watch that notices every other damaged file (by the boot failing), so it must not be
// damaged itself; a damaged stylesheet does not stop the boot, so the page cannot notice it.
// They are small (index.html 44 kB, the stylesheets 29 kB): reading and hashing one adds about
// half a millisecond (measured in Chromium on the 2-core development machine).
const checkedAsServed = (request) => request.mode === "navigate" || request.destination === "style";

// What a navigation gets when the cached page is damaged and the network cannot replace it.
const DAMAGED_PAGE = `<!doctype html><html lang="en"><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Courtyard Ludo</title>
<h1>Courtyard Ludo</h1>
<p>The copy of Courtyard Ludo on this device is damaged, so the game cannot start.
Connect to the internet once and reload: that repairs it. Your saved game is kept.</p>
<p><a href="./">Reload</a></p></html>`;

// The type each precached file is served as (by its name's extension: BUILD.types, from
// tools/build_sw.py). Cache Storage belongs to the origin, so any script of the origin can
// store an entry under our name; the body is checked against its hash, and the headers that
// decide how the browser reads it are the worker's own: a copy stored with its body intact
// but as `text/plain` (or with status 404) was served so, and a page refused as HTML, or a
// module refused under strict MIME checks, kept the game from starting at every visit,
// online too (the boot watch's check found every file intact).
function typeOf(file) {
  const path = new URL(file).pathname;
  const dot = path.lastIndexOf(".");
  return dot < 0 ? undefined : BUILD.types[path.slice(dot).toLowerCase()];
}

function asServed(response, file) {
  const type = typeOf(file);
  if (response.status === 200 && (!type || response.headers.get("Content-Type") === type)) {
    return response;
  }
  const headers = new Headers(response.headers);
  if (type) headers.set("Content-Type", type);
  return new Response(response.body, { status: 200, statusText: "OK", headers });
}

// The answer from the cache, and the work to do after it: a listed file that is missing from
// the cache (lost, or deleted by hand), or a damaged page or stylesheet, comes from the network
// and is stored again.
async function fromCache(request, key, clientId) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(key === INDEX ? INDEX : request, { ignoreSearch: true, ignoreVary: true });
  const damaged = hit && checkedAsServed(request) && !(await intact(hit, FILES.get(key)));
  if (hit && !damaged) return { response: asServed(hit, key), after: null };
  let response;
  try {
    response = await fetch(request);
  } catch (error) {
    if (!hit) throw error; // offline, and nothing cached: as without a worker
    // Offline with a damaged copy: the page is replaced by one that says so; a stylesheet is
    // served all the same (the game works, looking wrong) and the page is told why (pwa.py).
    if (request.mode === "navigate") {
      const headers = { "Content-Type": "text/html; charset=utf-8" };
      return { response: new Response(DAMAGED_PAGE, { headers }), after: null };
    }
    const tell = (client) => client?.postMessage({ type: "DAMAGED" });
    return { response: asServed(hit, key), after: self.clients.get(clientId).then(tell) };
  }
  return { response, after: restore(cache, key, response.clone()) };
}

// Checks our copy of `file` and, when it is damaged or missing, fetches it again; answers
// "intact", "repaired" or "damaged" (offline, or the server has another version by now).
// The repair bypasses the HTTP cache: nothing on this device is trusted for that file.
async function check(file) {
  const cache = await caches.open(CACHE);
  const copy = await cache.match(file);
  if (copy && (await intact(copy, FILES.get(file)))) return "intact";
  try {
    const response = await fetch(file, { cache: "reload", credentials: "same-origin" });
    return (await restore(cache, file, response)) ? "repaired" : "damaged";
  } catch {
    return "damaged"; // offline: at the next failure
  }
}

// A page could not start (index.html's boot watch): every file is checked, one after the other
// (22 MB: 0.13 s when all are intact, measured as above; never on a normal boot).
// One check at a time, whoever asks: the askers while one runs get its answer. Any page of the
// origin may post CHECK_ALL; each used to start a check of its own, so 200 at once read and
// hashed the 22 MB 200 times over, concurrently (30 s in Chromium, every copy of the 10 MB
// wasm in memory at once).
let checkingAll = null;
function checkAllOnce() {
  checkingAll ??= checkAll().finally(() => { checkingAll = null; });
  return checkingAll;
}
const checking = new Map(); // file -> its check under way (CHECK), shared likewise
function checkOnce(file) {
  if (!checking.has(file)) checking.set(file, check(file).finally(() => checking.delete(file)));
  return checking.get(file);
}

async function checkAll() {
  const found = { repaired: [], damaged: [] };
  for (const file of FILES.keys()) {
    const state = await check(file);
    if (state !== "intact") found[state].push(file);
  }
  return found;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const target = new URL(request.url);
  if (target.origin !== self.location.origin) return;
  target.search = "";
  target.hash = "";
  let key = target.href;
  if (key === SCOPE && request.mode === "navigate") key = INDEX;
  if (!FILES.has(key)) return; // not part of the app: the network, as without a worker
  const answer = fromCache(request, key, event.clientId);
  event.respondWith(answer.then(({ response }) => response));
  event.waitUntil(answer.then(({ after }) => after).catch(() => {})); // offline: next time
});

self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type === "SKIP_WAITING") {
    self.skipWaiting();
  } else if (data.type === "VERSION" && event.ports[0]) {
    event.ports[0].postMessage({ version: BUILD.version, cache: CACHE });
  } else if (data.type === "CHECK" && FILES.has(data.url)) {
    // boot.mjs asks when the browser refused the Pyodide snapshot (Subresource Integrity),
    // which it then boots without: a damaged copy would slow every boot of this version.
    event.waitUntil(checkOnce(data.url).catch(() => {}));
  } else if (data.type === "CHECK_ALL" && event.ports[0]) {
    const port = event.ports[0];
    event.waitUntil(checkAllOnce().then((found) => port.postMessage(found),
                                     () => port.postMessage({ repaired: [], damaged: [] })));
  }
});
