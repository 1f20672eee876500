#!/usr/bin/env python3
"""The page's flashcard trainer (view=train) in a real headless Chromium.

    python3 test_trainer.py WRITABLE_URL READ_ONLY_URL /tmp/screenshots

WRITABLE_URL is a `tabiya serve --writable` of a database whose cards are, in id order and
all due: White's 1. e4 (note "Best by test."), Black's 1... c5 after 1. e4 (note "The
Sicilian."), White's 2. Nf3 or 2. Nc3 after 1. e4 c5. READ_ONLY_URL serves (read only)
another database with one due card, White's 1. d4. Needs `pip install playwright` and
Debian's /usr/bin/chromium (never `playwright install`).

Steps (a screenshot after each, NN-name.png): the trainer opened from the header's Train
link; a right move played on the board (verdict, note, green arrow, the answer kept); the
next card turned for Black, a wrong move (the right move's green arrow, the wrong one's red
arrow); a move typed in the "Type a move" box; the failed card asked again (SM-2's same-day
repetition) and the end of the session; what the server kept; back to the explorer; a
read-only server refusing the answer; the trainer at phone size. Exits 1 on any failure.
"""

import json
import os
import sys
import time
import traceback
import urllib.parse
import urllib.request

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
TIMEOUT_MS = 15000
GREEN, RED = "#15781B", "#882020"  # Chessground's green and red brushes


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


class Test:
    def __init__(self, base, read_only, shots):
        self.base = base.rstrip("/") + "/"
        self.read_only = read_only.rstrip("/") + "/"
        self.shots = shots
        self.results = []
        self.shot_no = 0
        self.page_errors = []

    def api(self, path, base=None, **params):
        q = urllib.parse.urlencode(params)
        with urllib.request.urlopen((base or self.base) + path + ("?" + q if q else ""), timeout=30) as r:
            return json.load(r)

    def shot(self, page, name, full_page=False):
        self.shot_no += 1
        page.screenshot(path=os.path.join(self.shots, f"{self.shot_no:02d}-{name}.png"), full_page=full_page)

    def step(self, name, fn, *args):
        t = time.monotonic()
        try:
            detail = fn(*args) or ""
            self.results.append((name, "ok", detail, time.monotonic() - t))
        except Exception as e:
            detail = str(e) if isinstance(e, Failure) else "".join(traceback.format_exception_only(type(e), e)).strip()
            self.results.append((name, "FAIL", detail, time.monotonic() - t))

    def new_page(self, browser, **context):
        page = browser.new_context(**context).new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        return page

    @staticmethod
    def click_square(page, square, orientation):
        box = page.locator("#board").bounding_box()
        size = box["width"] / 8
        file, rank = "abcdefgh".index(square[0]), int(square[1]) - 1
        col, row = (file, 7 - rank) if orientation == "white" else (7 - file, rank)
        page.mouse.click(box["x"] + (col + 0.5) * size, box["y"] + (row + 0.5) * size)
        page.wait_for_timeout(120)

    def play(self, page, uci, orientation):
        self.click_square(page, uci[:2], orientation)
        self.click_square(page, uci[2:4], orientation)

    @staticmethod
    def phase(page, phase):
        page.wait_for_selector(f"#trainer[data-phase='{phase}']")

    @staticmethod
    def arrows(page):
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        return sorted(page.eval_on_selector_all("#board svg.cg-shapes line", "ls => ls.map(l => l.getAttribute('stroke'))"))

    @staticmethod
    def pieces(page):
        """The board's pieces by square, as Chessground placed them: {'e2': 'white pawn', ...}."""
        page.wait_for_timeout(300)  # any animation done
        return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#board cg-board piece')]
            .filter(p => p.cgKey && !p.classList.contains('fading'))
            .map(p => [p.cgKey, [...p.classList].filter(c => c !== 'anim').join(' ')]))""")

    @staticmethod
    def orientation(page):
        return "black" if page.locator("#board .cg-wrap.orientation-black").count() else "white"

    def card(self, card_id):
        return next(c for c in self.api("api/cards")["cards"] if c["id"] == card_id)

    # ------------------------------------------------------------------ steps

    def open_trainer(self, page):
        page.goto(self.base)
        page.wait_for_selector("#explorer-table tbody tr[data-move]")
        page.click("#train-link")
        self.phase(page, "ask")
        q = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
        check(q.get("view") == ["train"], f"the URL is {page.url}")
        check(page.get_attribute("#trainer", "data-card") == "1", "the first card asked is not card 1")
        progress = page.inner_text("#trainer-progress")
        check(progress.startswith("Card 1 of 3 · 3 left"), f"progress {progress!r}")
        check(self.orientation(page) == "white", "White's card is not shown from White's side")
        check(page.locator("#board cg-board piece").count() == 32, "not 32 pieces")
        check(not page.is_visible("#tabs") and not page.is_visible("#engine"), "the explorer's tabs or the engine are shown")
        self.shot(page, "trainer-first-card")
        return progress

    def right_on_the_board(self, page):
        self.play(page, "e2e4", "white")
        self.phase(page, "answered")
        check(page.get_attribute("#trainer-feedback", "data-correct") == "true", "not judged right")
        verdict = page.inner_text("#trainer-feedback")
        check("✓ Right: e4." in verdict, f"verdict {verdict!r}")
        check("Next review in 1 day (2026-04-21)." in verdict, f"verdict {verdict!r}")
        check("Best by test." in page.inner_text("#trainer-note"), "no note")
        check(self.arrows(page) == [GREEN], f"arrows {self.arrows(page)}")
        kept = self.card(1)
        check(kept["schedule"]["reviews"] == 1 and kept["due"] == "2026-04-21T09:00:00Z", f"kept: {kept['schedule']} due {kept['due']}")
        self.shot(page, "trainer-right")
        return verdict.replace("\n", " / ")

    def wrong_on_the_board(self, page):
        page.keyboard.press("Enter")  # "Next card" has the focus
        self.phase(page, "ask")
        check(page.get_attribute("#trainer", "data-card") == "2", "card 2 is not next")
        check(self.orientation(page) == "black", "Black's card is not shown from Black's side")
        prompt = page.inner_text("#trainer-prompt")
        check(prompt.startswith("Black to move after 1. e4"), f"prompt {prompt!r}")
        check("2 of 3" in page.inner_text("#trainer-progress"), "progress")
        self.play(page, "e7e5", "black")
        self.phase(page, "answered")
        check(page.get_attribute("#trainer-feedback", "data-correct") == "false", "not judged wrong")
        verdict = page.inner_text("#trainer-feedback")
        check("✗ Wrong: you played e5; the move is c5." in verdict, f"verdict {verdict!r}")
        check("asked again today" in verdict, f"verdict {verdict!r}")
        check(self.arrows(page) == sorted([GREEN, RED]), f"arrows {self.arrows(page)}")
        # The board is back on the card's position (the wrong move undone) and locked.
        board = self.pieces(page)
        check(board.get("e7") == "black pawn" and "e5" not in board, f"the wrong move stays on the board: {board}")
        check("The Sicilian." in page.inner_text("#trainer-note"), "no note")
        self.shot(page, "trainer-wrong")
        return verdict.replace("\n", " / ")

    def typed(self, page):
        page.keyboard.press("Enter")
        self.phase(page, "ask")
        check(page.get_attribute("#trainer", "data-card") == "3", "card 3 is not next")
        page.fill("#move-input", "Nc3")
        page.press("#move-input", "Enter")
        self.phase(page, "answered")
        verdict = page.inner_text("#trainer-feedback")
        check("✓ Right: Nc3 (also right: Nf3)." in verdict, f"verdict {verdict!r}")
        check(self.arrows(page) == [GREEN, GREEN], f"arrows {self.arrows(page)}")
        self.shot(page, "trainer-typed")
        return verdict.replace("\n", " / ")

    def again_and_done(self, page):
        page.click("#trainer-next")
        self.phase(page, "ask")
        check(page.get_attribute("#trainer", "data-card") == "2", "the failed card is not asked again")
        progress = page.inner_text("#trainer-progress")
        check("asked again today" in progress, f"progress {progress!r}")
        self.play(page, "c7c5", "black")
        self.phase(page, "answered")
        verdict = page.inner_text("#trainer-feedback")
        check("Repeated today: the schedule stays (next review 2026-04-21)." in verdict, f"verdict {verdict!r}")
        self.shot(page, "trainer-again")
        page.click("#trainer-next")
        self.phase(page, "done")
        done = page.inner_text("#trainer-done")
        check(done == "No card is left for today: 4 answered, 3 right.", f"done {done!r}")
        self.shot(page, "trainer-done")
        return done

    def kept(self, page):
        two = self.card(2)
        s = two["schedule"]
        check((s["reviews"], s["lapses"], s["again"], s["easiness"]) == (2, 1, False, 1.96), f"card 2: {s}")
        listed = self.api("api/cards", due=1)
        check(listed["due"] == 0, f"still due: {listed['due']}")
        return f"card 2: {s}"

    def back_to_explorer(self, page):
        page.click("#trainer-leave")
        page.wait_for_selector("#explorer-table tbody tr[data-move]")
        check(page.is_visible("#tabs"), "no tabs in the explorer")
        check("view=" not in page.url, f"URL {page.url}")
        page.go_back()
        self.phase(page, "done")
        return "the back button returns to the trainer"

    def refused(self, browser):
        page = self.new_page(browser, viewport={"width": 1280, "height": 900})
        page.goto(self.read_only + "?view=train")
        self.phase(page, "ask")
        self.play(page, "d2d4", "white")
        page.wait_for_selector("#trainer .api-error")
        self.phase(page, "ask")
        shown = page.inner_text("#trainer .api-error")
        check("--writable" in shown, f"the page says {shown!r}")
        board = self.pieces(page)
        check(board.get("d2") == "white pawn" and "d4" not in board, f"the refused move stays on the board: {board}")
        check(self.api("api/cards", base=self.read_only)["due"] == 1, "the refused answer was kept")
        self.shot(page, "trainer-refused")
        page.context.close()
        return shown

    def phone(self, browser):
        page = self.new_page(browser, viewport={"width": 390, "height": 844}, device_scale_factor=2,
                             is_mobile=True, has_touch=True)
        page.goto(self.read_only + "?view=train")
        self.phase(page, "ask")
        width = page.evaluate("document.documentElement.scrollWidth")
        check(width <= 390, f"the page is {width}px wide at 390px")
        board = page.locator("#board").bounding_box()
        check(board["width"] >= 330, f"the board is only {board['width']}px wide")
        self.shot(page, "trainer-phone", full_page=True)
        page.context.close()
        return f"board {board['width']:.0f}px"

    def run(self):
        os.makedirs(self.shots, exist_ok=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = self.new_page(browser, viewport={"width": 1280, "height": 900})
            self.step("the trainer from the header", self.open_trainer, page)
            self.step("a right move on the board", self.right_on_the_board, page)
            self.step("a wrong move on the board, Black's side", self.wrong_on_the_board, page)
            self.step("a typed move", self.typed, page)
            self.step("the failed card again, the end", self.again_and_done, page)
            self.step("what the server kept", self.kept, page)
            self.step("back to the explorer and back", self.back_to_explorer, page)
            self.step("a read-only server refuses", self.refused, browser)
            self.step("phone size (390x844)", self.phone, browser)
            browser.close()
        failed = 0
        print(f"Tabiya trainer test against {self.base} and {self.read_only} (screenshots in {self.shots})")
        for name, status, detail, secs in self.results:
            failed += status == "FAIL"
            print(f"  {status:7s} {name} ({secs:.1f}s){': ' + detail if detail else ''}")
        if self.page_errors:
            failed += 1
            print("  FAIL    uncaught errors in the page:")
            for e in self.page_errors:
                print(f"          {e}")
        print(f"{sum(1 for r in self.results if r[1] == 'ok')} passed, {failed} failed")
        return 1 if failed else 0


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    return Test(sys.argv[1], sys.argv[2], sys.argv[3]).run()


if __name__ == "__main__":
    sys.exit(main())
