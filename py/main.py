"""Entry script: the page's Python starts here (see index.html).

The performance marks let bench/boot.py split a boot into runtime start-up,
imports and the controller's own boot.
"""

import os
import sys

from pyscript import window

window.performance.mark("ludo:python-start")

# Every other module of the page is in py.zip, which PyScript wrote into the working folder as it
# is (pyscript.toml): imported from the archive (zipimport, with the bytecode in it), rather
# than unpacked into a file each at every boot (tools/build_pybundle.py).
sys.path.insert(0, os.path.abspath("py.zip"))

from app.browser.dom import watch_faults  # noqa: E402
from app.browser.online import OnlineController  # noqa: E402

window.performance.mark("ludo:imported")
watch_faults()  # from here on an unexpected error is one calm line, not tracebacks on the page
controller = OnlineController()
controller.boot()
window.performance.mark("ludo:booted")
