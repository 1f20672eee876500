#!/usr/bin/env python3
"""The page's structure search (view=search, search-view.js) in a real headless Chromium.

    python3 test_search.py http://127.0.0.1:9877/ /tmp/screenshots search|errors

Needs `pip install playwright` (the Python package only: the browser is Debian's
/usr/bin/chromium). The server must serve one chess database of real games (Kasparov's, in
the test) whose start has games reaching the pawn structure STRUCTURE below.

`search` steps: the view opened from the header's link; a pawn structure set on the board
editor by clicking the palette and the squares (and one square by the keyboard); the search
run, its game count against /api/search asked directly, a move row and a game row against the
same answer; a structure reached next clicked (and the back button); the game list paged and
sorted (against /api/search); a game clicked, the viewer showing the position whose FEN is the
game's `fen`, and back; a reload showing the same search; the explorer's pawns taken; a
pattern set by clicking and one typed with *; a material signature alone; screenshots at 1400
and 800 px, checked for nothing cut or overlapping.

`errors` steps: a bad pattern typed (the server's message shown), a bad material signature, a
bad pawn structure in a link, nothing to search for (the page's own message, no request).

Prints a summary; exits 1 on any failure.
"""

import json
import os
import sys
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
TIMEOUT_MS = 15000
# The Carlsbad-like structure of the Queen's Gambit Declined, exchange-free: the brief's example.
STRUCTURE = "8/pp3ppp/2p5/3p4/3P4/4P3/PP3PPP/8"
WHITE_PAWNS = ["a2", "b2", "f2", "g2", "h2", "e3", "d4"]
BLACK_PAWNS = ["d5", "c6", "a7", "b7", "f7", "g7"]  # h7 by the keyboard
D5_KNIGHT = "????????/????????/????????/???N????/????????/????????/????????/????????"


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


class Test:
    def __init__(self, base, shots, which):
        self.base = base.rstrip("/") + "/"
        self.shots = shots
        self.which = which
        self.results = []
        self.shot_no = 0
        self.page_errors = []

    # ------------------------------------------------------------------ helpers

    def api_url(self, path, **params):
        q = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None}, safe=",/*")
        return self.base + path.lstrip("/") + ("?" + q if q else "")

    def api(self, path, **params):
        url = self.api_url(path, **params)
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            raise Failure(f"{url}: HTTP {e.code} {e.read()[:300]!r}") from e

    def api_error(self, path, **params):
        """The message of a 400 answer (the request must be refused)."""
        url = self.api_url(path, **params)
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                raise Failure(f"{url} answered {r.status}, expected 400")
        except urllib.error.HTTPError as e:
            check(e.code == 400, f"{url}: HTTP {e.code}, expected 400")
            return json.loads(e.read())["error"]

    def url(self, **params):
        q = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None}, safe=",/*")
        return self.base + ("?" + q if q else "")

    def shot(self, page, name, full_page=True):
        self.shot_no += 1
        path = os.path.join(self.shots, f"{self.which}-{self.shot_no:02d}-{name}.png")
        page.screenshot(path=path, full_page=full_page)
        return path

    def step(self, name, fn, *args):
        t = time.monotonic()
        try:
            detail = fn(*args) or ""
            self.results.append((name, "ok", detail, time.monotonic() - t))
        except Exception as e:  # a failed step is reported and the next ones still run
            detail = str(e) if isinstance(e, Failure) else "".join(traceback.format_exception_only(type(e), e)).strip()
            self.results.append((name, "FAIL", detail, time.monotonic() - t))

    def new_page(self, browser, width=1400, height=900):
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        return page

    @staticmethod
    def settle(page):
        page.wait_for_function("document.documentElement.dataset.loading !== 'true'")
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    @staticmethod
    def query(page):
        return urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)

    def shown_count(self, page):
        """The game count the page shows (after a search: #search-count)."""
        page.wait_for_selector("#search-count")
        text = page.inner_text("#search-count strong").replace(",", "")
        check(text == page.get_attribute("#search-count", "data-games"), f"count {text!r} and its data-games differ")
        return int(text)

    def wait_count(self, page, want):
        try:
            page.wait_for_function(
                f"() => {{ const c = document.querySelector('#search-count'); return c && c.dataset.games === '{want}'; }}")
        except Exception as e:
            shown = page.get_attribute("#search-count", "data-games") if page.query_selector("#search-count") else None
            raise Failure(f"the page shows {shown} games, /api/search says {want}") from e
        self.settle(page)

    @staticmethod
    def choose(page, tool):
        """Clicks the palette's choice `tool` (a piece letter or a mark)."""
        page.click(f"#search-board .sb-choice:has(input[value='{tool}'])")
        check(page.is_checked(f"#search-board input[value='{tool}']"), f"the palette's {tool} is not chosen")

    @staticmethod
    def square(page, name):
        page.click(f"#search-board .sb-square[data-square='{name}']")

    def check_layout(self, page):
        """Nothing of the search view cut at the right or overlapping: each block inside the
        viewport, the form beside (or above) the results, not over them."""
        found = page.evaluate("""() => {
            const out = [];
            const vw = document.documentElement.clientWidth;
            const box = (s) => { const e = document.querySelector(s); return e ? e.getBoundingClientRect() : null; };
            for (const s of ['#search-form', '#search-results', '#search-board .sb-grid', '#search-moves',
                             '#search-games', '#search-text', '.sb-palette']) {
                const r = box(s);
                if (!r) continue;
                if (r.left < -1 || r.right > vw + 1) out.push(`${s} spans ${Math.round(r.left)}..${Math.round(r.right)} of ${vw}`);
            }
            const f = box('#search-form'), r = box('#search-results');
            if (f && r) {
                const apart = f.right <= r.left + 1 || f.bottom <= r.top + 1;
                if (!apart) out.push(`the form ${JSON.stringify(f)} overlaps the results ${JSON.stringify(r)}`);
            }
            const g = box('#search-board .sb-grid');
            if (g && Math.abs(g.width - g.height) > 2) out.push(`the board is ${g.width}x${g.height}`);
            for (const t of document.querySelectorAll('#search-results table')) {
                const p = t.closest('.search-results').getBoundingClientRect();
                if (t.getBoundingClientRect().right > p.right + 1) out.push(`table ${t.id} wider than the results`);
            }
            for (const s of document.querySelectorAll('#search-board .sb-choice:not([hidden])')) {
                const c = s.getBoundingClientRect(), p = s.parentElement.getBoundingClientRect();
                if (c.right > p.right + 1) out.push(`palette choice ${s.title} cut`);
            }
            return out;
        }""")
        check(not found, "; ".join(found))

    # ------------------------------------------------------------------ search steps

    def open_view(self, page):
        page.goto(self.url())
        page.wait_for_selector("#explorer-table tbody tr[data-move]")
        self.settle(page)
        page.click("#search-link")
        page.wait_for_selector("#search-form")
        self.settle(page)
        check(self.query(page).get("view") == ["search"], f"URL {page.url}")
        check(page.get_attribute("#search-link", "aria-current") == "page", "the header's link is not marked current")
        check(not page.is_visible("#board"), "the explorer's board is shown beside the search")
        check(page.is_visible("#search-board .sb-grid"), "no board editor")
        check(page.locator("#search-board .sb-square").count() == 64, "the board editor has not 64 squares")
        check(page.locator("#search-board .sb-choice").count() == 17, "the palette has not 12 pieces and 5 marks")
        return "opened from the header"

    def pawns_by_clicking(self, page):
        page.click("#search-mode-pawns")
        check(page.inner_text("#search-text-label") == "Pawn structure", "the text field is not the pawn structure's")
        check(page.locator("#search-board .sb-choice:not([hidden])").count() == 3, "the pawns mode offers other pieces")
        self.choose(page, "P")
        for sq in WHITE_PAWNS:
            self.square(page, sq)
        self.choose(page, "p")
        for sq in BLACK_PAWNS:
            self.square(page, sq)
        # h7 by the keyboard: from g7, the right arrow, then p.
        page.focus("#search-board .sb-square[data-square='g7']")
        page.keyboard.press("ArrowRight")
        check(page.evaluate("document.activeElement.dataset.square") == "h7", "the right arrow did not reach h7")
        page.keyboard.press("p")
        check(page.get_attribute("#search-board .sb-square[data-square='h7']", "aria-label") == "h7, black pawn",
              "h7 is not named a black pawn")
        # A pawn clicked twice is taken off again.
        self.choose(page, "P")
        self.square(page, "c3")
        self.square(page, "c3")
        text = page.input_value("#search-text")
        check(text == STRUCTURE, f"the board wrote {text!r}, expected {STRUCTURE!r}")
        # No pawn on the first rank.
        self.square(page, "c1")
        check(page.input_value("#search-text") == STRUCTURE, "a pawn was put on c1")
        check("first or last rank" in page.inner_text("#search-board-status"), "no word about the pawn on c1")
        return text

    def run_search(self, page):
        page.click("#search-run")
        want = self.api("api/search", pawns=STRUCTURE)
        self.wait_count(page, want["games"])
        check(self.query(page).get("pawns") == [STRUCTURE], f"URL {page.url}")
        shown = self.shown_count(page)
        check(shown == want["games"], f"shown {shown}, /api/search {want['games']}")
        check(want["games"] > 20, f"only {want['games']} games: the paging is not tested")
        # The moves table: its first row as the API's first move.
        rows = page.locator("#search-moves tbody tr:visible")
        check(rows.count() == min(12, len(want["moves"])), f"{rows.count()} move rows, {len(want['moves'])} moves")
        first = rows.first
        check(first.get_attribute("data-uci") == want["moves"][0]["uci"], "the first move row is not the API's")
        check(first.locator("th").inner_text().strip() == want["moves"][0]["san"],
              f"move {first.locator('th').inner_text()!r}, API {want['moves'][0]['san']!r}")
        m = want["moves"][0]
        n = m["white"] + m["draws"] + m["black"] + m["unknown"]
        games_text = first.locator("td.games").evaluate("td => td.firstChild.textContent").replace(",", "")
        check(games_text == str(n), f"the first move's games {games_text!r}, API {n}")
        check(first.locator(".wdl-bar").count() == 1, "no W/D/L bar in the move row")
        # The page asked for 12 moves; "Show all" asks for the rest, in the API's order.
        more = page.locator("#search-more-moves")
        if len(want["moves"]) > 12:
            check(more.inner_text() == f"Show all {len(want['moves'])} moves", more.inner_text())
            more.click()
            page.wait_for_function(
                f"document.querySelectorAll('#search-moves tbody tr').length === {len(want['moves'])}")
            ucis = page.eval_on_selector_all("#search-moves tbody tr", "rows => rows.map(r => r.dataset.uci)")
            check(ucis == [m["uci"] for m in want["moves"]], "all moves shown are not the API's, in its order")
            check(more.count() == 0, "the Show all button stayed")
        else:
            check(more.count() == 0, f"a Show all button for {len(want['moves'])} moves")
        check(page.locator(".search-totals .wdl-bar").count() == 1, "no W/D/L bar for the totals")
        # The game rows.
        games = page.locator("#search-games tbody tr")
        check(games.count() == len(want["list"]), f"{games.count()} game rows, API {len(want['list'])}")
        link = games.first.locator("a[data-game]")
        g = want["list"][0]
        check(link.get_attribute("data-game") == str(g["id"]) and link.get_attribute("data-ply") == str(g["ply"]),
              "the first game row is not the API's first game")
        check(g["white"]["name"] in link.inner_text(), "the first game row lacks White's name")
        check(page.inner_text("#search-games-count") == f"Games 1–20 of {want['games']}", page.inner_text("#search-games-count"))
        self.shot(page, "pawns-1400")
        self.check_layout(page)
        return f"{shown} games, {len(want['moves'])} moves, {len(want['next'])} structures next"

    def next_structure(self, page):
        want = self.api("api/search", pawns=STRUCTURE)
        check(want["next"], "no structure reached next")
        s = want["next"][0]
        row = page.locator("#search-next tbody tr").first
        check(row.get_attribute("data-pawns") == s["pawns"], "the first structure next is not the API's")
        check(row.locator("td.num").inner_text().replace(",", "") == str(s["games"]), "its games differ from the API's")
        row.locator("button.search-next-structure").click()
        other = self.api("api/search", pawns=s["pawns"])
        self.wait_count(page, other["games"])
        check(self.query(page).get("pawns") == [s["pawns"]], f"URL {page.url}")
        check(page.input_value("#search-text") == s["pawns"], "the text field does not show the structure clicked")
        cells = page.eval_on_selector_all("#search-board .sb-square", "bs => bs.map(b => b.dataset.cell).join('')")
        check(cells.count("P") + cells.count("p") == s["pawns"].count("P") + s["pawns"].count("p"),
              "the board does not show the structure clicked")
        page.go_back()
        self.wait_count(page, want["games"])
        check(page.input_value("#search-text") == STRUCTURE, "back: the text field is not the first structure")
        return f"{s['pawns']}: {other['games']} games; back to {want['games']}"

    def paging_and_sorting(self, page):
        # By the keyboard: Next, and the focus kept on the pager (Next is then disabled).
        page.focus("#search-next-page")
        page.keyboard.press("Enter")
        want = self.api("api/search", pawns=STRUCTURE, offset=20)
        page.wait_for_function("() => new URLSearchParams(location.search).get('offset') === '20'")
        self.settle(page)
        focused = page.evaluate("document.activeElement.id")
        check(focused == "search-prev", f"after Next the focus is on {focused!r}, not on Previous")
        ids = page.eval_on_selector_all("#search-games tbody a[data-game]", "as => as.map(a => a.dataset.game)")
        check(ids == [str(g["id"]) for g in want["list"]], f"page 2 {ids}, API {[g['id'] for g in want['list']]}")
        check(page.inner_text("#search-games-count") == f"Games 21–{want['games']} of {want['games']}", page.inner_text("#search-games-count"))
        check(page.is_disabled("#search-next-page"), "Next is not disabled on the last page")
        page.click("#search-prev")
        page.wait_for_function("() => !new URLSearchParams(location.search).has('offset')")
        page.select_option("#search-sort", "date")
        by_date = self.api("api/search", pawns=STRUCTURE, sort="date")
        page.wait_for_function("() => new URLSearchParams(location.search).get('sort') === 'date'")
        self.settle(page)
        ids = page.eval_on_selector_all("#search-games tbody a[data-game]", "as => as.map(a => a.dataset.game)")
        check(ids == [str(g["id"]) for g in by_date["list"]], "sorted by date: not the API's order")
        return f"page 2: {len(want['list'])} games; by date first {by_date['list'][0]['date']}"

    def game_in_viewer(self, page):
        by_date = self.api("api/search", pawns=STRUCTURE, sort="date")
        g = by_date["list"][1]  # not the first: a row further down
        link = page.locator(f"#search-games tbody a[data-game='{g['id']}']")
        link.click()
        page.wait_for_selector(".game-viewer .mv")
        page.wait_for_function(f"() => document.querySelector('#fen-field').value === {json.dumps(g['fen'])}")
        self.settle(page)
        q = self.query(page)
        check(q.get("game") == [str(g["id"])] and q.get("ply") == [str(g["ply"])], f"URL {page.url}")
        check(page.input_value("#fen-field") == g["fen"], f"viewer FEN {page.input_value('#fen-field')!r}, game's {g['fen']!r}")
        check(page.is_visible("#board"), "no board in the viewer")
        check(page.locator("#board cg-board piece").count() == sum(c.isalpha() for c in g["fen"].split()[0]),
              "the board's pieces are not the position's")
        current = page.get_attribute(".game-viewer .mv.is-current", "data-path")
        check(current == str(g["ply"]), f"the current move is {current}, the game's ply {g['ply']}")
        check(page.is_hidden("#panel-search"), "the search is shown beside the viewer")
        back = page.inner_text(".game-viewer .back-button")
        check("search" in back, f"the back button says {back!r}")
        self.shot(page, "game-at-ply")
        page.click(".game-viewer .back-button")
        page.wait_for_selector("#search-count")
        check(page.is_visible("#search-games"), "back: the search's games are not shown")
        check(self.query(page).get("pawns") == [STRUCTURE], f"back: URL {page.url}")
        return f"game {g['id']} at ply {g['ply']}: {g['fen']}"

    def reload_keeps_search(self, page):
        link = self.url(view="search", pawns=STRUCTURE, eitherColour="true")
        want = self.api("api/search", pawns=STRUCTURE, eitherColour="true")
        page.goto(link)
        self.wait_count(page, want["games"])
        check(page.is_checked("#search-either"), "either colour is not ticked from the link")
        check(page.is_checked("#search-mode-pawns"), "the link's pawn structure is not in the pawns mode")
        page.reload()
        self.wait_count(page, want["games"])
        check(page.input_value("#search-text") == STRUCTURE, "the reload lost the structure")
        # Back to the explorer, and to the search again with the header's link: the search kept.
        page.click("#search-leave")
        page.wait_for_selector("#explorer-table tbody tr[data-move]")
        check(page.is_visible("#board") and page.is_hidden("#panel-search"), "the explorer is not shown")
        check("pawns" not in self.query(page), f"the explorer's URL keeps the search: {page.url}")
        page.click("#search-link")
        self.wait_count(page, want["games"])
        check(page.input_value("#search-text") == STRUCTURE, "the header's link lost the search")
        return f"either colour: {want['games']} games"

    def explorers_pawns(self, page):
        line = "d2d4,d7d5,c2c4,e7e6,b1c3,g8f6,c4d5,e6d5"
        page.goto(self.url(play=line, view="search"))
        page.wait_for_selector("#search-form")
        self.settle(page)
        page.click("#search-mode-pawns")
        page.click("#search-from-pawns")
        text = page.input_value("#search-text")
        check(text == "8/ppp2ppp/8/3p4/3P4/8/PP2PPPP/8", f"the explorer's pawns written {text!r}")
        page.click("#search-mode-pattern")
        page.click("#search-from-pieces")
        text = page.input_value("#search-text")
        check(text.startswith("rnbqkb?r/ppp??ppp/?????n??/???p????/???P????/??N?????/PP??PPPP/R?BQKBNR"),
              f"the explorer's pieces written {text!r}")
        return text

    def pattern_by_clicking(self, page):
        page.goto(self.url(view="search"))
        page.wait_for_selector("#search-form")
        self.settle(page)
        check(page.is_checked("#search-mode-pattern"), "not in the pattern mode")
        self.choose(page, "N")
        self.square(page, "d5")
        self.choose(page, "1")
        self.square(page, "d4")
        self.square(page, "d4")  # and off again
        text = page.input_value("#search-text")
        check(text == D5_KNIGHT, f"the board wrote {text!r}")
        page.click("#search-run")
        want = self.api("api/search", pattern=D5_KNIGHT)
        self.wait_count(page, want["games"])
        check(self.query(page).get("pattern") == [D5_KNIGHT], f"URL {page.url}")
        # Typed by hand with *: searched as written, the board saying it cannot show it.
        page.fill("#search-text", "*/*/*/3N4/*/*/*/*")
        check("cannot show" in page.inner_text("#search-board-note"), "no note that the board cannot show *")
        page.click("#search-run")
        typed = self.api("api/search", pattern="*/*/*/3N4/*/*/*/*")
        self.wait_count(page, typed["games"])
        # A plain pattern typed is read back into the board.
        page.fill("#search-text", "8/8/8/8/8/8/8/A6a")
        check(page.get_attribute("#search-board .sb-square[data-square='a1']", "aria-label") == "a1, any white piece", "A on a1 not read back")
        check(page.get_attribute("#search-board .sb-square[data-square='h1']", "aria-label") == "h1, any black piece", "a on h1 not read back")
        check(page.get_attribute("#search-board .sb-square[data-square='e4']", "aria-label") == "e4, empty", "8 not read back as empty squares")
        return f"{D5_KNIGHT}: {want['games']} games; */*/*/3N4/*/*/*/*: {typed['games']}"

    def same_san_apart(self, page):
        # A knight on d5 before a pawn on d6, either colour: Kasparov's games take on d5 with
        # knights from several squares, each "...Nxd5" in its own position.
        pattern = "*/*/???p????/???N????/*/*/*/*"
        page.goto(self.url(view="search", pattern=pattern, eitherColour="true"))
        page.wait_for_selector("#search-moves tbody tr")
        want = self.api("api/search", pattern=pattern, eitherColour="true", limit=0)["moves"]
        if page.locator("#search-more-moves").count():
            page.click("#search-more-moves")
        page.wait_for_function(f"document.querySelectorAll('#search-moves tbody tr').length === {len(want)}")
        rows = page.eval_on_selector_all(
            "#search-moves tbody tr", "rows => rows.map(r => [r.dataset.uci, r.querySelector('th').textContent])")
        sans = [m["san"] for m in want]
        shared = {s for s in sans if sans.count(s) > 1}
        check(shared, "no two moves of one SAN: this step tests nothing")
        for (uci, label), m in zip(rows, want):
            check(uci == m["uci"], f"row {uci}, API {m['uci']}")
            if m["san"] in shared:
                told = (f"{m['san']} from {m['uci'][:2]}", f"{m['san']} from {m['uci']}")
                check(label in told, f"{m['uci']}: {label!r}, want one of {told}")
            else:
                check(label == m["san"], f"{m['uci']}: {label!r}, want {m['san']!r}")
        labels = [label for _, label in rows]
        check(len(set(labels)) == len(labels), f"two rows read alike: {labels}")
        self.shot(page, "moves-told-apart")
        return f"{sum(sans.count(s) for s in shared)} moves share {len(shared)} SANs, each row told apart"

    def material_alone(self, page):
        page.click("#search-reset")
        check(page.input_value("#search-text") == "", "New search left the text")
        page.fill("#search-material", "KRPvKR")
        page.click("#search-run")
        want = self.api("api/search", material="KRPvKR")
        self.wait_count(page, want["games"])
        check(self.query(page).get("material") == ["KRPvKR"], f"URL {page.url}")
        check(page.locator("#search-next").count() == 0, "structures next without a pawn structure")
        return f"KRPvKR: {want['games']} games"

    def screenshots(self, browser):
        shots = []
        for width in (1400, 800):
            page = self.new_page(browser, width=width, height=900)
            want = self.api("api/search", pawns=STRUCTURE)
            page.goto(self.url(view="search", pawns=STRUCTURE))
            self.wait_count(page, want["games"])
            self.check_layout(page)
            shots.append(self.shot(page, f"pawns-{width}"))
            shots.append(self.shot(page, f"pawns-{width}-top", full_page=False))
            page.goto(self.url(view="search", pattern=D5_KNIGHT))
            self.wait_count(page, self.api("api/search", pattern=D5_KNIGHT)["games"])
            self.check_layout(page)
            shots.append(self.shot(page, f"pattern-{width}-top", full_page=False))
            page.context.close()
        return ", ".join(os.path.basename(s) for s in shots)

    # ------------------------------------------------------------------ error steps

    def bad_pattern(self, page):
        page.goto(self.url(view="search"))
        page.wait_for_selector("#search-form")
        self.settle(page)
        bad = "*/*/*"
        message = self.api_error("api/search", pattern=bad)
        page.fill("#search-text", bad)
        page.click("#search-run")
        alert = page.locator("#search-results .api-error")
        alert.wait_for(state="visible")
        text = alert.inner_text()
        check(message in text, f"shown {text!r}, the server said {message!r}")
        check(page.locator("#search-count").count() == 0, "a count is shown beside the error")
        self.shot(page, "bad-pattern-1400", full_page=False)
        return text

    def bad_material(self, page):
        bad = "KKvK"
        message = self.api_error("api/search", material=bad)
        page.click("#search-reset")
        page.fill("#search-material", bad)
        page.click("#search-run")
        page.wait_for_function(
            f"() => (document.querySelector('#search-results .api-error')?.textContent || '').includes({json.dumps(message)})")
        return message

    def bad_link(self, browser):
        page = self.new_page(browser, width=800, height=900)
        bad = "8/8/8/8/8/8/8/PPPPPPPP"
        message = self.api_error("api/search", pawns=bad)
        page.goto(self.url(view="search", pawns=bad))
        page.wait_for_function(
            f"() => (document.querySelector('#search-results .api-error')?.textContent || '').includes({json.dumps(message)})")
        check(page.input_value("#search-text") == bad, "the link's structure is not in the text field")
        check("cannot show" in page.inner_text("#search-board-note"), "no note that the board cannot show it")
        self.shot(page, "bad-link-800")
        page.context.close()
        return message

    def nothing_to_search(self, page):
        page.goto(self.url(view="search"))
        page.wait_for_selector("#search-form")
        self.settle(page)
        asked = []
        page.on("request", lambda r: asked.append(r.url) if "/api/search" in r.url else None)
        page.click("#search-run")
        page.wait_for_selector("#search-form-error:visible")
        check("Nothing to search for" in page.inner_text("#search-form-error"), page.inner_text("#search-form-error"))
        self.settle(page)
        check(not asked, f"asked {asked}")
        page.fill("#search-for", "0")
        page.fill("#search-material", "KRvK")
        page.click("#search-run")
        check("Held for" in page.inner_text("#search-form-error"), page.inner_text("#search-form-error"))
        return "refused by the page"

    # ------------------------------------------------------------------ run

    def run(self):
        os.makedirs(self.shots, exist_ok=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = self.new_page(browser)
            if self.which == "search":
                self.step("the view from the header", self.open_view, page)
                self.step("a pawn structure by clicking the board editor", self.pawns_by_clicking, page)
                self.step("the search run: count, moves, games against /api/search", self.run_search, page)
                self.step("a structure reached next, and back", self.next_structure, page)
                self.step("games paged and sorted", self.paging_and_sorting, page)
                self.step("a game opened in the viewer at its ply", self.game_in_viewer, page)
                self.step("a link and a reload keep the search", self.reload_keeps_search, page)
                self.step("the explorer's pawns and pieces taken", self.explorers_pawns, page)
                self.step("a pattern by clicking, one typed", self.pattern_by_clicking, page)
                self.step("moves of one SAN told apart", self.same_san_apart, page)
                self.step("a material signature alone", self.material_alone, page)
                self.step("screenshots at 1400 and 800 px", self.screenshots, browser)
            else:
                self.step("a bad pattern: the server's message", self.bad_pattern, page)
                self.step("a bad material signature", self.bad_material, page)
                self.step("a bad pawn structure in a link", self.bad_link, browser)
                self.step("nothing to search for", self.nothing_to_search, page)
            browser.close()

        failed = 0
        print(f"Tabiya structure search ({self.which}) against {self.base} (screenshots in {self.shots})")
        for name, status, detail, secs in self.results:
            failed += status == "FAIL"
            print(f"  {status:7s} {name} ({secs:.1f}s){': ' + detail if detail else ''}")
        if self.page_errors:
            failed += 1
            print("  FAIL    uncaught errors in the page:")
            for e in self.page_errors:
                print(f"          {e}")
        ok = sum(1 for r in self.results if r[1] == "ok")
        print(f"{ok} passed, {failed} failed, 0 skipped")
        return 1 if failed else 0


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("search", "errors"):
        print(__doc__)
        return 2
    return Test(*sys.argv[1:]).run()


if __name__ == "__main__":
    sys.exit(main())
