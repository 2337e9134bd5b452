"""Entry script: the page's Python starts here (see index.html).

The performance marks let bench/boot.py split a boot into runtime start-up,
imports and the controller's own boot.
"""

from pyscript import window

window.performance.mark("ludo:python-start")

from app.browser.online import OnlineController  # noqa: E402

window.performance.mark("ludo:imported")
controller = OnlineController()
controller.boot()
window.performance.mark("ludo:booted")
