/**
 * Issue 41: the approval page in a real browser. Debian's Chromium (/usr/bin/chromium, or
 * MNOTE_CHROMIUM) driven by playwright-core with its executablePath, a fresh user-data-dir: the
 * person opens the host's link, reads the preview (en, and zh-CN by Accept-Language), and
 * Approve -> the host's retry writes once; Decline -> nothing; a second tab after the answer says
 * "already answered"; another person's cookie is refused; an expired record writes nothing. The
 * kernel's writes are counted. Without Chromium the suite is skipped with the reason, unless
 * MNOTE_REQUIRE_CHROMIUM=1 (.ci/run), which makes it fail instead.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { pageWorld, type PageWorld } from "./page-support";

const CHROMIUM = process.env.MNOTE_CHROMIUM ?? "/usr/bin/chromium";
const missing = existsSync(CHROMIUM)
  ? undefined
  : `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set MNOTE_CHROMIUM)`;
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

function describeChromium(name: string, body: () => void): void {
  if (!missing) return describe(name, body);
  if (process.env.MNOTE_REQUIRE_CHROMIUM === "1")
    return describe(name, () =>
      it("has Chromium", () => {
        throw new Error(`${missing}; MNOTE_REQUIRE_CHROMIUM=1 makes it mandatory`);
      }),
    );
  process.stderr.write(`${name}: skipped: ${missing}\n`);
  describe.skip(`${name} (skipped: ${missing})`, body);
}

describeChromium("the approval page in Chromium", () => {
  let w: PageWorld;
  let browser: BrowserContext;
  beforeAll(async () => {
    browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "mnote-chromium-")), {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      locale: "en-US",
      timeout: 60_000,
    });
  }, 90_000);
  afterAll(() => browser?.close());
  beforeEach(async () => {
    w = await pageWorld();
  });
  afterEach(() => w.close());

  /** Opens the host's sign-in link for the record, as the person of `sessionId`. */
  async function open(id: string, sessionId = w.as.sessionId, lang?: string): Promise<Page> {
    const page = await browser.newPage();
    // the reader's language, as a browser set to it sends it (the context's own locale is en-US)
    if (lang)
      await page.route("**/*", (route) =>
        route.continue({ headers: { ...route.request().headers(), "accept-language": lang } }),
      );
    await page.goto(`${w.base}/approvals/${id}?ticket=${await w.ticket(sessionId)}`);
    expect(new URL(page.url()).search).toBe(""); // the ticket left the address bar
    return page;
  }

  const visible = (page: Page, status: string) =>
    page.locator(`.status[data-status="${status}"]`).waitFor({ state: "visible", timeout: 30_000 });

  it("Approve: the preview is read, the answer recorded, the host's retry writes exactly once", async () => {
    const { token, id } = await w.ask();
    const page = await open(id);
    expect(await page.locator("#summary").innerText()).toMatch(/^Replace all text of “.+”: remove \d+ paragraphs?/);
    await page.click("#approve");
    await visible(page, "approved");
    expect((await w.t.runtime.approvalRecords.get(id))?.status).toBe("approved");
    expect((await w.retry(token)).ok).toBe(true);
    expect(w.writes()).toBe(1);
    // a second tab after the answer: already answered, no buttons
    const second = await browser.newPage();
    await second.goto(`${w.base}/approvals/${id}`);
    await visible(second, "approved");
    expect(await second.locator("#buttons").isVisible()).toBe(false);
    expect(await second.locator(".status[data-status=approved]").innerText()).toMatch(/^Already answered/);
    await Promise.all([page.close(), second.close()]);
    expect(w.writes()).toBe(1);
  }, 60_000);

  it("Decline, in Chinese: nothing is written", async () => {
    const { token, id } = await w.ask();
    const page = await open(id, w.as.sessionId, "zh-CN,zh;q=0.9");
    expect(await page.locator("#summary").innerText()).toMatch(/^替换「.+」的全部内容/);
    await page.click("#decline");
    await visible(page, "declined");
    const r = await w.retry(token);
    expect([r.error?.code, r.error?.reason]).toEqual(["mnote_tool_approval_denied", "declined"]);
    expect(w.writes()).toBe(0);
    await page.close();
  }, 60_000);

  it("another person's cookie is refused and sees no preview; the record stays pending", async () => {
    const { id } = await w.ask();
    const other = await w.t.session({ actorId: "user_2" });
    const page = await open(id, other.sessionId);
    // another's record is answered as an unknown one (docs/APPROVAL.md: no existence oracle)
    expect(await page.locator("#refused").innerText()).toMatch(/^No such approval/);
    expect(await page.locator("#summary").count()).toBe(0);
    // even a request the page's own origin makes with that cookie is refused
    const status = await page.evaluate(async (path) => {
      const r = await fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ answer: "approve" }),
      });
      return r.status;
    }, `/v1/approvals/${id}`);
    expect(status).toBe(404);
    expect((await w.t.runtime.approvalRecords.get(id))?.status).toBe("pending");
    expect(w.writes()).toBe(0);
    await page.close();
  }, 60_000);

  it("an expired record shows expired, offers no buttons, and nothing is written", async () => {
    const { token, id } = await w.ask();
    w.clock.now += 11 * 60 * 1000;
    const page = await open(id);
    await visible(page, "expired");
    expect(await page.locator("#buttons").isVisible()).toBe(false);
    expect((await w.retry(token)).error?.code).toBe("mnote_tool_approval_expired");
    expect(w.writes()).toBe(0);
    await page.close();
  }, 60_000);
});
