"""Running the local API for a test: on a free port, in a thread of its own, stopped after."""

import threading
from contextlib import contextmanager

from skill_studio.api.server import ApiServer


@contextmanager
def serving(store, **options):
    """An ApiServer over *store* answering requests until the block ends."""
    server = ApiServer(store, 0, **options)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
