// The classic site's real-browser test (docs/testing.md): Debian's
// Chromium, driven by playwright-core, opens the pages a reader sees — the
// home page, a post holding a table, a footnote, a task list, a code
// block, a cover and an uploaded image, a page, a category, a tag, search
// results and a missing page — in light and in dark mode, and fails on a
// console error or warning, an uncaught exception, a failed request, an
// unexpected HTTP error, a Content Security Policy violation, or a serious
// or critical accessibility problem found by axe-core. It also checks the
// reader-facing fixes in the real DOM (docs/design.md#classic-site). Each
// page is saved as a screenshot at 1280 and 390 pixels wide.
//
// scripts/browser-test.sh seeds the site and runs this with:
//   BASE        the server's URL, e.g. http://127.0.0.1:41234
//   SHOTS       the folder for screenshots
//   POST_PATH   the seeded post with everything, e.g. /posts/site-check
//   POST_TITLE  its title
//   IMAGE_PATH  the short link of the uploaded image it shows, /i/{key}
//   IMAGE_SIZE  that image's width×height, e.g. 48x32
// Before it seeds anything, it runs this with SITE_WELCOME=1 (and BASE and
// SHOTS only): then the one page checked is the empty site's home page
// and its first-run welcome (docs/operating.md#first-start).
import { chromium } from "playwright-core";
import { readFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const env = (name) => {
  const v = process.env[name];
  if (!v) {
    console.error(`site.mjs: the environment variable ${name} is required`);
    process.exit(2);
  }
  return v;
};
const BASE = env("BASE").replace(/\/+$/, "");
const SHOTS = env("SHOTS");
const WELCOME = process.env.SITE_WELCOME === "1";
const seeded = (name) => (WELCOME ? "" : env(name));
const POST_PATH = seeded("POST_PATH");
const POST_TITLE = seeded("POST_TITLE");
const IMAGE_PATH = seeded("IMAGE_PATH");
const [IMAGE_W, IMAGE_H] = seeded("IMAGE_SIZE").split("x");
mkdirSync(SHOTS, { recursive: true });
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const WAIT = 20_000;

class Failure extends Error {}
let current = "(start)";
const fail = (message) => { throw new Failure(`${current}: ${message}`); };
const check = (cond, message) => { if (!cond) fail(message); };

// The harness: what the browser reports while a page loads.
const problems = [];
let allowStatus = null; // the one HTTP error a page expects (the 404 page)

function watch(page) {
  page.on("console", (msg) => {
    const text = msg.text();
    if (/Content.Security.Policy/i.test(text)) return problems.push(`CSP message on ${page.url()}: ${text}`);
    if (msg.type() !== "error" && msg.type() !== "warning") return;
    if (allowStatus && /Failed to load resource/.test(text) && text.includes(`status of ${allowStatus}`)) return;
    problems.push(`console ${msg.type()} on ${page.url()}: ${text}`);
  });
  page.on("pageerror", (err) => problems.push(`uncaught exception on ${page.url()}: ${err.message}`));
  page.on("requestfailed", (req) => {
    const failure = req.failure()?.errorText || "unknown";
    // Chromium cancels an icon fetch when the page moves on; no fault of the page.
    if (req.resourceType() !== "document" && /ERR_ABORTED/.test(failure) && /\/favicon\.[0-9a-f]+\.svg$/.test(req.url())) return;
    problems.push(`request failed: ${req.method()} ${req.url()}: ${failure}`);
  });
  page.on("response", (res) => {
    if (res.status() >= 400 && res.status() !== allowStatus) problems.push(`HTTP ${res.status()} for ${res.url()}`);
  });
}

async function settle(page) {
  await page.waitForLoadState("load");
  await page.waitForLoadState("networkidle").catch(() => {});
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))).catch(() => {});
  if (problems.length) fail(`the browser reported problems:\n  - ${problems.splice(0).join("\n  - ")}`);
}

// look: axe-core in light and dark mode, one <h1>, one search landmark,
// and screenshots at 1280 and 390 pixels (light and dark).
async function look(page, name) {
  await settle(page);
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme });
    if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] }))
      .violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map((n) => `${n.target.join(" ")}: ${n.html.slice(0, 160)}\n        ${(n.failureSummary || "").replace(/\n/g, "\n        ")}`) })));
    const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    if (bad.length) {
      fail(`axe-core found violations on ${name} (${page.url()}, ${scheme} mode):\n    ` +
        bad.map((v) => `[${v.impact}] ${v.id}: ${v.help}\n      at ${v.nodes.slice(0, 5).join("\n      at ")}`).join("\n    "));
    }
    const size = page.viewportSize();
    await page.screenshot({ path: join(SHOTS, `${name}-1280${scheme === "dark" ? "-dark" : ""}.png`), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(SHOTS, `${name}-390${scheme === "dark" ? "-dark" : ""}.png`), fullPage: true });
    await page.setViewportSize(size);
  }
  await page.emulateMedia({ colorScheme: "light" });
  check((await page.title()).trim() !== "", `${name} has no <title>`);
  const h1 = await page.locator("h1").count();
  check(h1 === 1, `${name} has ${h1} <h1> elements, want 1`);
  const search = await page.getByRole("search").count();
  check(search === 1, `${name} has ${search} search landmarks, want 1`);
  await settle(page);
}

async function go(page, path, status = 200) {
  allowStatus = status >= 400 ? status : null;
  const res = await page.goto(path, { waitUntil: "load" });
  check(res && res.status() === status, `GET ${path} answered ${res?.status()}, want ${status}`);
}

// coverLinks: a list's cover links are out of the tab order and hidden
// from screen readers (the title link follows), yet named by their image.
async function coverLinks(page, name) {
  const covers = await page.$$eval("a.cover", (as) => as.map((a) => ({
    hidden: a.getAttribute("aria-hidden"), tabindex: a.getAttribute("tabindex"),
    alt: a.querySelector("img")?.getAttribute("alt") || "", label: a.getAttribute("aria-label") || "",
  })));
  check(covers.length > 0, `${name} shows no cover link (a.cover)`);
  for (const c of covers) {
    check(c.alt.trim() !== "" || c.label.trim() !== "", `${name}: a cover link has no name: ${JSON.stringify(c)}`);
    check(c.hidden === "true" && c.tabindex === "-1", `${name}: a cover link is announced or focusable beside its title link: ${JSON.stringify(c)}`);
  }
  check(covers.some((c) => c.alt === POST_TITLE || c.label === POST_TITLE), `${name}: no cover link is named "${POST_TITLE}"`);
}

async function postChecks(page) {
  // Code blocks are focusable (axe: scrollable-region-focusable) and take focus.
  const pres = await page.$$eval(".content pre", (ps) => ps.map((p) => p.getAttribute("tabindex")));
  check(pres.length > 0 && pres.every((t) => t === "0"), `code blocks' tabindex: ${JSON.stringify(pres)}, want all "0"`);
  await page.focus(".content pre");
  check(await page.evaluate(() => document.activeElement?.tagName === "PRE"), "a code block does not take focus");
  // Task checkboxes are named by their item's text, and the items have no bullet.
  const named = await page.getByRole("checkbox", { name: "Write the renderer" }).count();
  check(named === 1, `no checkbox named "Write the renderer" (found ${named})`);
  const bullets = await page.$$eval(".content li.task-list-item", (lis) => lis.map((li) => getComputedStyle(li).listStyleType));
  check(bullets.length === 2 && bullets.every((b) => b === "none"), `task items' list-style-type: ${JSON.stringify(bullets)}, want none`);
  // The own upload has its size (no shift while it loads), the table and footnote are there.
  const img = await page.$eval(`.content img[src="${IMAGE_PATH}"]`, (i) => ({
    w: i.getAttribute("width"), h: i.getAttribute("height"), loading: i.getAttribute("loading"), natural: i.naturalWidth,
  })).catch(() => null);
  check(img, `the post lacks .content img[src="${IMAGE_PATH}"]`);
  check(img.w === IMAGE_W && img.h === IMAGE_H, `the uploaded image is ${img.w}×${img.h}, want ${IMAGE_W}×${IMAGE_H}`);
  check(img.loading === "lazy", `the uploaded image's loading is ${img.loading}`);
  await page.$eval(`.content img[src="${IMAGE_PATH}"]`, (i) => i.scrollIntoView());
  await page.waitForFunction((src) => document.querySelector(`.content img[src="${src}"]`)?.complete, IMAGE_PATH);
  check(await page.$eval(`.content img[src="${IMAGE_PATH}"]`, (i) => i.naturalWidth) > 0, "the uploaded image did not load");
  check(await page.locator(".content table").count() === 1, "the post lacks its table");
  check(await page.locator(".content .footnotes").count() === 1, "the post lacks its footnote");
}

// welcomeChecks: an empty site's home page greets its administrator with
// a way to the console instead of an empty list, fits a phone, and its
// link leads to the console's sign-in page.
async function welcomeChecks(page) {
  check(await page.locator("section.welcome").count() === 1, "the empty home page shows no welcome (section.welcome)");
  check(await page.locator(".empty").count() === 0, "the empty home page shows the empty list beside the welcome");
  const link = page.getByRole("link", { name: "Sign in to write the first post" });
  check(await link.count() === 1, "the welcome has no link named \"Sign in to write the first post\"");
  await page.setViewportSize({ width: 360, height: 800 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  await page.setViewportSize({ width: 1280, height: 900 });
  check(wide <= 360, `the welcome is ${wide} px wide at 360`);
  await link.focus();
  await page.keyboard.press("Enter");
  await page.waitForURL((u) => u.pathname === "/console/login" && u.searchParams.get("next") === "/console/blog/posts/new");
  await settle(page);
  check(await page.locator('input[name="next"][value="/console/blog/posts/new"]').count() === 1, "the sign-in form does not carry next=/console/blog/posts/new");
}

async function main() {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync"],
  });
  const summary = [];
  let failed = false;
  let page;
  try {
    const context = await browser.newContext({ baseURL: BASE, viewport: { width: 1280, height: 900 }, colorScheme: "light" });
    await context.exposeBinding("__folioReportCSP", (_src, v) => problems.push(`CSP violation on ${v.uri}: ${v.directive} blocked ${v.blocked || "(inline)"}`));
    await context.addInitScript(() => document.addEventListener("securitypolicyviolation", (e) =>
      window.__folioReportCSP?.({ uri: e.documentURI, directive: e.effectiveDirective, blocked: e.blockedURI })));
    context.setDefaultTimeout(WAIT);
    page = await context.newPage();
    watch(page);
    const search = `/search?q=${encodeURIComponent(POST_TITLE.split(" ")[0])}`;
    const pages = WELCOME ? [["welcome", "/", 200, () => welcomeChecks(page)]] : [
      ["home", "/", 200, () => coverLinks(page, "home")],
      ["post", POST_PATH, 200, () => postChecks(page)],
      ["page", "/pages/about", 200, null],
      ["category", "/categories/field-notes", 200, () => coverLinks(page, "category")],
      ["tag", "/tags/golang", 200, () => coverLinks(page, "tag")],
      ["search", search, 200, () => coverLinks(page, "search")],
      ["not-found", "/no-such-page", 404, null],
    ];
    for (const [name, path, status, extra] of pages) {
      current = `${name} (${path})`;
      const t0 = Date.now();
      try {
        await go(page, path, status);
        await look(page, name);
        if (extra) await extra();
        summary.push(`ok    ${current} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      } catch (e) {
        failed = true;
        summary.push(`FAIL  ${current}`);
        console.error(`\nsite.mjs: FAIL: ${e instanceof Failure ? e.message : e.stack || e}\n`);
        await page.screenshot({ path: join(SHOTS, "FAIL.png"), fullPage: true }).catch(() => {});
        break;
      }
    }
  } finally {
    await browser.close().catch(() => {});
  }
  console.log("\nsite pages:\n  " + summary.join("\n  "));
  console.log(`screenshots: ${SHOTS}`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(`site.mjs: ${e.stack || e}`);
  process.exit(1);
});
