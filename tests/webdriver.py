"""A small W3C WebDriver client for the browser test: starts the system's chromedriver with
the system's Chromium (Debian's `chromium` and `chromium-driver` packages) and speaks the
WebDriver protocol to it over HTTP with the standard library."""

from __future__ import annotations

import base64
import http.client
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage", "--window-size=1280,1100"]


def find_browser() -> tuple[str | None, str | None]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    return browser, driver


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebDriverError(AssertionError):
    pass


class Browser:
    def __init__(self, browser: str, driver: str):
        self.port = _free_port()
        self.profile = tempfile.mkdtemp(prefix="mafiacheck-chromium-")
        self.driver = subprocess.Popen([driver, f"--port={self.port}"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                self._call("GET", "/status")
                break
            except (OSError, WebDriverError):
                if time.monotonic() > deadline:
                    self.driver.kill()
                    raise
                time.sleep(0.2)
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": browser,
                                   "args": CHROMIUM_ARGS + [f"--user-data-dir={self.profile}"]}}}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def _call(self, method, path, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        data = None if body is None else json.dumps(body).encode("utf-8")
        conn.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
        reply = conn.getresponse()
        payload = json.loads(reply.read() or b"{}")
        conn.close()
        if reply.status >= 400:
            raise WebDriverError(f"{method} {path}: {payload.get('value', payload)}")
        return payload.get("value", payload) if path != "/session" else payload["value"]

    def _s(self, method, path, body=None):
        return self._call(method, f"/session/{self.session}{path}", body)

    def get(self, url: str) -> None:
        self._s("POST", "/url", {"url": url})

    def find(self, css: str, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            found = self._s("POST", "/elements", {"using": "css selector", "value": css})
            if found:
                return found[0][ELEMENT]
            if time.monotonic() > deadline:
                raise WebDriverError(f"no element matches {css!r}")
            time.sleep(0.1)

    def click(self, css: str) -> None:
        self._s("POST", f"/element/{self.find(css)}/click", {})

    def text(self, css: str) -> str:
        return self._s("GET", f"/element/{self.find(css)}/text")

    def run(self, script: str, *args):
        return self._s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def wait_for(self, script: str, timeout: float = 30.0, *args):
        """Until the script returns something truthy; returns it."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.run(script, *args)
            if value:
                return value
            if time.monotonic() > deadline:
                raise WebDriverError(f"timed out waiting for: {script}")
            time.sleep(0.1)

    def screenshot(self, path: str) -> None:
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(self._s("GET", "/screenshot")))

    def quit(self) -> None:
        try:
            self._s("DELETE", "")
        except (OSError, WebDriverError):
            pass
        self.driver.terminate()
        try:
            self.driver.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.driver.kill()
            self.driver.wait()
        shutil.rmtree(self.profile, ignore_errors=True)
