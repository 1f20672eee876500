#!/usr/bin/env python3
"""Pages of other sites against a `tabiya serve --writable`, in a real headless Chromium.

    python3 test_cross_site.py http://127.0.0.1:9878/ DBNAME

The server serves DBNAME (chess games from the standard start, a note on 1. e4). Two
attackers, each a page that runs in Chromium and tries everything a page can:

1. A page of another origin (served here by Python on another port): a `text/plain` POST
   deleting every game (what once deleted most of a database), the same as a form, a JSON
   POST, a DELETE, a PATCH (these need the browser to ask first), reading the page's grant
   and the position's note.
2. A page that reached the server through a name of its own (DNS rebinding: Chromium is told
   that `rebind.test` is 127.0.0.1, and the page's own document is served to it first by
   the attacker): the same, now "same-origin" to the browser.

After each, the number of games (asked directly), the note and a game's tags must be as they
were, and the page must have read nothing. Prints a summary; exits 1 on any failure.
"""

import http.server
import json
import sys
import threading
import urllib.parse
import urllib.request

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

failures = []
passed = []


def check(cond, message):
    if cond:
        passed.append(message)
    else:
        failures.append(message)
        print("FAIL:", message, flush=True)


def get_json(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


# Every attempt the page makes, each reporting what it could see: "read:<text>" when the
# answer was readable, "status:<n>" for an opaque or refused answer, "error:<name>" when the
# browser stopped it.
ATTACK = r"""
<!doctype html><meta charset="utf-8"><title>attacker</title>
<form id="f" method="POST" enctype="text/plain" target="sink"></form>
<iframe name="sink"></iframe>
<script>
const T = TARGET;
const DB = DBNAME;
async function attempt(name, url, init) {
  try {
    const r = await fetch(url, init);
    let text = '';
    try { text = await r.text(); } catch (e) {}
    return [name, r.type === 'opaque' ? 'status:opaque' : 'read:' + r.status + ':' + text];
  } catch (e) {
    return [name, 'error:' + e.name];
  }
}
window.attack = async () => {
  const everything = JSON.stringify({ where: "result = '1-0' or result = '0-1' or result = '1/2-1/2' or result = '*'" });
  const out = [];
  out.push(await attempt('text/plain POST (no-cors)', T + 'api/games/delete?db=' + DB,
    { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: everything }));
  out.push(await attempt('JSON POST', T + 'api/games/delete?db=' + DB,
    { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: everything }));
  out.push(await attempt('DELETE', T + 'api/game/1?db=' + DB, { method: 'DELETE' }));
  out.push(await attempt('PATCH', T + 'api/game/1?db=' + DB,
    { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: '{"set":{"Result":"0-1"}}' }));
  out.push(await attempt('PUT note (no-cors)', T + 'api/note?db=' + DB + '&play=e2e4',
    { method: 'PUT', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: '{"note":"pwned"}' }));
  const grant = await attempt('read the grant', T + 'api/grant', {});
  out.push(grant);
  // With a grant read, the worst: a delete showing it.
  const m = grant[1].match(/"grant":"([0-9a-f]+)"/);
  if (m) {
    out.push(await attempt('POST with the grant read', T + 'api/games/delete?db=' + DB,
      { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + m[1] }, body: everything }));
  }
  out.push(await attempt('read the note', T + 'api/explore?db=' + DB + '&play=e2e4', {}));
  out.push(await attempt('read the cards', T + 'api/cards?db=' + DB, {}));
  // A plain form, as a page without script would send it.
  const f = document.getElementById('f');
  f.action = T + 'api/games/delete?db=' + DB;
  const i = document.createElement('input');
  i.name = '{"where":"1 = 1", "x":"'; i.value = '"}';
  f.appendChild(i);
  f.submit();
  await new Promise((r) => setTimeout(r, 1500));
  return out;
};
</script>
"""


def attack_page(target, db):
    return ATTACK.replace("TARGET", json.dumps(target)).replace("DBNAME", json.dumps(db))


def state(base, db):
    games = [d for d in get_json(base + "api/databases")["databases"] if d["name"] == db][0]["games"]
    note = get_json(base + "api/explore?" + urllib.parse.urlencode({"db": db, "play": "e2e4"})).get("note")
    game = get_json(base + "api/game/1?" + urllib.parse.urlencode({"db": db}))
    return games, note, json.dumps(game, sort_keys=True)


def judge(who, results, before, after):
    for name, seen in results:
        print(f"  {who}: {name}: {seen[:160]}", flush=True)
        readable = seen.startswith("read:")
        if readable:
            status = int(seen.split(":")[1])
            check(status >= 400, f"{who}: {name}: refused, nothing read (got {status})")
        else:
            check(True, f"{who}: {name}: stopped ({seen})")
    check(after == before, f"{who}: the games, the note and game 1 are as they were ({before[0]} games)")
    check(not any(n == "POST with the grant read" for n, _ in results), f"{who}: no grant was read")


def main():
    target, db = sys.argv[1], sys.argv[2]
    port = urllib.parse.urlparse(target).port
    before = state(target, db)
    check(before[0] > 0 and before[1], "the database has games and a note to protect")

    page = attack_page(target, db).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    other_url = f"http://127.0.0.1:{other.server_address[1]}/"

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            # Chromium's own guard against public pages reaching private addresses (Local
            # Network Access) would stop the rebound page before the server sees it: turned
            # off, so that what is tested is the server's defence, as in a browser without it.
            args=ARGS + ["--host-resolver-rules=MAP rebind.test 127.0.0.1",
                         "--disable-features=BlockInsecurePrivateNetworkRequests,"
                         "PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults,"
                         "LocalNetworkAccessChecks"],
        )
        # 1. Another origin.
        tab = browser.new_page()
        tab.goto(other_url)
        results = tab.evaluate("window.attack()")
        judge("another origin", results, before, state(target, db))

        # 2. DNS rebinding: the attacker's document is served under rebind.test:PORT (the
        # name first resolved to the attacker), then every request of the page goes to the
        # server (the name now resolves to 127.0.0.1).
        rebound = f"http://rebind.test:{port}/"
        tab = browser.new_page()
        rebind_page = attack_page(rebound, db)
        tab.route(rebound + "attack", lambda route: route.fulfill(
            status=200, content_type="text/html; charset=utf-8", body=rebind_page))
        tab.goto(rebound + "attack")
        results = tab.evaluate("window.attack()")
        judge("DNS rebinding", results, before, state(target, db))
        # The server refused the name itself: its own page is not served under it.
        answer = tab.evaluate(
            "fetch('/api/databases').then(r => r.status + ' ' + r.headers.get('content-type'))")
        check(answer.startswith("403"), f"DNS rebinding: the server refuses the name ({answer})")

        # 3. The server's own page still changes what it may: it holds the grant.
        own = browser.new_page()
        own.goto(target)
        changed = own.evaluate(
            """async (db) => {
                const g = await (await fetch('/api/grant')).json();
                const r = await fetch('/api/note?db=' + db + '&play=e2e4&', {
                  method: 'PUT', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + g.grant },
                  body: JSON.stringify({ note: 'kept by the page' }) });
                return r.status;
            }""", db)
        check(changed == 200, f"the server's own page changes a note with its grant ({changed})")
        browser.close()
    after = state(target, db)
    check(after[1] == "kept by the page", f"the note the own page set is kept ({after[1]!r})")
    other.shutdown()
    print(f"{len(passed)} passed, {len(failures)} failed, 0 skipped")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
