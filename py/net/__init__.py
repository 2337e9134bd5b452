"""Online play, the parts that are plain Python (they run in CPython and in Pyodide alike).

- `dice`: verifiable dice, a hash-chain commit-reveal that no peer (the host included) can
  choose or predict, and that anyone can check afterwards from the game record.
- `signalling`: the page's side of the signalling helper (server/signal.py): room ids, where the
  helper is, and its messages.

Only the standard library is imported here, never the browser; docs/online.md is the guide.
"""
