#!/usr/bin/env python3
"""Drives the devtools page in a real headless Chromium, against LoftDevtoolsDemo with 10,000 extra keys.

usage: devtools_browser_test.py DEMO_EXECUTABLE SCREENSHOT.png

LOFT_TIME_SCALE=N multiplies every time limit below by N (default 1): CI runs the demo built with the thread
sanitizer, which serves several times slower, with N = 4. The limits as written hold for a plain debug build.

Checks, each failing the test when it does not hold:
- the list shows the keys the program made (10,009 in all), and how long the first page took to show;
- a fetch the program starts appears in the page's live events within a second, with its reason;
- clicking "invalidate" on a key makes the program's fetcher run for that key;
- going offline (the page's toggle) shows a fetch the program starts as paused;
- the page made no request outside the server it came from (and the browser can resolve no other host);
- the screenshot is not blank (many colours, decoded from the PNG here) and is saved at SCREENSHOT.png.
Needs Debian's chromium, chromium-driver and python3-selenium.
"""
import os
import queue
import struct
import subprocess
import sys
import threading
import time
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

demo_path, screenshot_path = sys.argv[1], sys.argv[2]
EXTRA_KEYS = 10_000
EXPECTED_KEYS = EXTRA_KEYS + 9  # users, users/1-3, todos/1-5
TIME_SCALE = float(os.environ.get("LOFT_TIME_SCALE", "1"))


def fail(message):
    print("FAILED: " + message)
    sys.exit(1)


demo = subprocess.Popen(
    [demo_path, "--keys", str(EXTRA_KEYS)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
lines = queue.Queue()
threading.Thread(target=lambda: [lines.put(line.rstrip("\n")) for line in demo.stdout], daemon=True).start()
seen = []


def wait_for_line(predicate, seconds):
    deadline = time.monotonic() + seconds * TIME_SCALE
    for line in seen:
        if predicate(line):
            return line
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        seen.append(line)
        if predicate(line):
            return line
    return None


def command(text):
    demo.stdin.write(text + "\n")
    demo.stdin.flush()


def wait_until(condition, seconds, what):
    seconds *= TIME_SCALE
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():
                return time.monotonic()
        except Exception:
            pass
        time.sleep(0.02)
    fail(f"{what} within {seconds} s")


def distinct_colours(png):
    """The number of distinct RGB colours of a PNG (8-bit RGB or RGBA, non-interlaced), sampled on a grid."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, idat, width, height, channels = 8, b"", 0, 0, 0
    while position < len(png):
        length, kind = struct.unpack(">I4s", png[position:position + 8])
        data = png[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", data[:10])
            assert depth == 8 and colour in (2, 6), "an 8-bit RGB(A) PNG"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += data
        position += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    colours = set()
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            up_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else up_left
                line[i] = (line[i] + predictor) & 0xFF
        if row % 4 == 0:
            for x in range(0, width, 4):
                colours.add(bytes(line[x * channels:x * channels + 3]))
        previous = line
    return colours


driver = None
try:
    url = wait_for_line(lambda line: line.startswith("devtools "), 120)
    if not url:
        fail("the demo printed no devtools address")
    url = url.split(" ", 1)[1]
    origin = url.rstrip("/")
    options = Options()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,1000", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)

    # The list: the first page of 10,009 keys, and the keys the program made, found by the filter.
    started = time.monotonic()
    driver.get(url)
    shown = wait_until(
        lambda: driver.find_element(By.ID, "total").text == str(EXPECTED_KEYS)
        and len(driver.find_elements(By.CSS_SELECTOR, "tr.entry")) == 200, 10, f"the list of {EXPECTED_KEYS} keys")
    print(f"the list of {EXPECTED_KEYS} keys showed in {shown - started:.2f} s")
    if shown - started > 5 * TIME_SCALE:
        fail(f"the list took more than {5 * TIME_SCALE:g} s")
    wait_until(lambda: driver.find_element(By.ID, "connection").text == "live", 5, "the live connection")
    # An entry nobody observes (the demo's extra keys) shows as inactive, with its age, not as fresh.
    first_row = driver.find_elements(By.CSS_SELECTOR, "tr.entry")[0]
    freshness = first_row.find_element(By.CSS_SELECTOR, "td:nth-child(5)").text
    if not freshness.startswith("inactive, "):
        fail(f"an unobserved entry shows {freshness!r}, not inactive with its age")
    if not driver.find_element(By.ID, "memory").text.startswith("memory "):
        fail("the header shows no memory figure")
    driver.find_element(By.ID, "filter").send_keys("users")
    wait_until(lambda: {row.get_attribute("data-key") for row in driver.find_elements(By.CSS_SELECTOR, "tr.entry")}
               == {"users", "users/1", "users/2", "users/3"}, 5, "the users keys under the filter")

    # A fetch the program starts appears with its reason within a second.
    command("refetch users")
    asked = time.monotonic()
    appeared = wait_until(lambda: "fetchStarted users (manual)" in driver.find_element(By.ID, "events").text, 1,
                          "the program's fetch of users in the live events")
    print(f"the program's fetch appeared after {appeared - asked:.2f} s")

    # Invalidate on a key runs the program's fetcher for it.
    filter_box = driver.find_element(By.ID, "filter")
    filter_box.clear()
    filter_box.send_keys("todos/3")
    wait_until(lambda: [row.get_attribute("data-key") for row in driver.find_elements(By.CSS_SELECTOR, "tr.entry")]
               == ["todos/3"], 5, "todos/3 alone under the filter")
    before = len([line for line in seen if line == "fetched todos/3"])
    driver.find_element(By.CSS_SELECTOR, 'tr.entry[data-key="todos/3"] button[data-action="invalidate"]').click()
    if not wait_for_line(lambda line: line == "fetched todos/3" and seen.count(line) > before, 3):
        fail("clicking invalidate on todos/3 did not run the program's fetcher")

    # Offline: a fetch the program starts is shown paused.
    driver.find_element(By.ID, "online-toggle").click()
    wait_until(lambda: driver.find_element(By.ID, "online-toggle").text == "offline", 3, "the offline toggle")
    filter_box.clear()
    filter_box.send_keys("users")
    command("refetch users")
    wait_until(lambda: driver.find_element(
        By.CSS_SELECTOR, 'tr.entry[data-key="users"] td:nth-child(3)').text == "paused", 3, "users paused offline")
    wait_until(lambda: "fetchPaused users" in driver.find_element(By.ID, "events").text, 3, "the pause event")
    driver.find_element(By.CSS_SELECTOR, 'tr.entry[data-key="users"]').click()
    wait_until(lambda: "Ada" in driver.find_element(By.ID, "detail-data").text, 3, "the data of users")

    # Nothing but the page's own server was asked.
    resources = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    foreign = [name for name in resources if not name.startswith(origin)]
    if foreign:
        fail(f"the page fetched outside its server: {foreign}")

    driver.save_screenshot(screenshot_path)
    with open(screenshot_path, "rb") as file:
        colours = distinct_colours(file.read())
    if len(colours) < 8:
        fail(f"the screenshot is nearly blank ({len(colours)} colours)")
    print(f"screenshot: {screenshot_path} ({len(colours)} colours sampled)")
    driver.find_element(By.ID, "online-toggle").click()
    print("devtools browser test passed")
finally:
    if driver:
        driver.quit()
    try:
        command("quit")
        demo.wait(timeout=10 * TIME_SCALE)
    except Exception:
        demo.kill()
