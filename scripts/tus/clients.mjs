// Real tus clients against Folio's resumable uploads (docs/testing.md#tus-client-test,
// docs/filehost.md). scripts/tus-test.sh starts the servers and runs this
// with:
//   BASE       process A's URL, e.g. http://127.0.0.1:41234
//   BASE_B     process B's URL: the same database and storage as A
//   USERNAME   an account that may upload (the administrator)
//   PASSWORD   and its password
//   WORK       a folder for the generated files
//   STEPS      the steps to run, by letter (default "a,b,c,d"):
//     a. tus-js-client (Node) sends 50 MB in 5 MiB chunks through a TCP
//        proxy that cuts the connection once after ~20 MB; the client
//        resumes on its own, and fewer bytes than a restart would need pass
//        the proxy;
//     b. tus-js-client starts a 50 MB upload on A, stops after ~40%, and a
//        new client continues it on B from the offset B reports;
//     c. Uppy's Tus plugin in Chromium, on a signed-in console page,
//        uploads 10 MB with the session cookie;
//     d. the console's own client (tus.js) in Chromium: a 40 MB file is
//        chosen, the page is reloaded while the proxy holds the upload at
//        ~16 MB, the file is chosen again and the upload continues from the
//        server's offset.
// Every step checks that the MD5 the server reports (data.md5 of the
// finished upload's GET) and the MD5 of the bytes downloaded from its URL
// equal the source's. The exit status is 0 only when every step passed.
import { chromium } from "playwright-core";
import * as tus from "tus-js-client";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { join } from "node:path";

const env = (name) => {
  const v = process.env[name];
  if (!v) {
    console.error(`clients.mjs: the environment variable ${name} is required`);
    process.exit(2);
  }
  return v;
};
const BASE = env("BASE").replace(/\/+$/, "");
const USERNAME = env("USERNAME");
const PASSWORD = env("PASSWORD");
const WORK = env("WORK");
const STEPS = (process.env.STEPS || "a,b,c,d").split(",").map((s) => s.trim()).filter(Boolean);
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const MB = 1e6;
const MiB = 1 << 20;
const require = createRequire(import.meta.url);

class Failure extends Error {}
function check(cond, message) {
  if (!cond) throw new Failure(message);
}

const md5 = (buf) => createHash("md5").update(buf).digest("hex");

// makeFile writes SIZE random bytes to WORK/NAME and returns its path,
// bytes and MD5.
function makeFile(name, size) {
  const bytes = randomBytes(size);
  const path = join(WORK, name);
  writeFileSync(path, bytes);
  return { name, path, bytes, size, md5: md5(bytes) };
}

// ---------------------------------------------------------------------------
// Credentials: a session cookie (administrator sign-in) and an API token.

async function signIn(base) {
  const res = await fetch(base + "/api/v1/admin/auth/login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: USERNAME, password: PASSWORD }),
  });
  check(res.status === 200, `sign-in: HTTP ${res.status} ${await res.text()}`);
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  check(cookie.includes("folio_session="), `sign-in set no session cookie: ${cookie}`);
  return cookie;
}

async function apiToken(base, cookie) {
  const res = await fetch(base + "/api/v1/tokens", {
    method: "POST",
    headers: { "Content-Type": "application/json", Cookie: cookie },
    body: JSON.stringify({ name: "tus-test" }),
  });
  const body = await res.json().catch(() => null);
  check(res.status === 201 && body && body.data && body.data.token, `token: HTTP ${res.status} ${JSON.stringify(body)}`);
  return body.data.token;
}

// ---------------------------------------------------------------------------
// The proxy: plain TCP, so that the client sees a real connection drop.

class Proxy {
  // cutAt: destroy both sockets of the connection that brings the
  // clients' bytes past it, once. pauseAt: from then on, hold whatever
  // that one connection sends, forwarding nothing more of it (other
  // connections go on), until the client closes it.
  constructor(targetPort, { cutAt = 0, pauseAt = 0 } = {}) {
    this.targetPort = targetPort;
    this.cutAt = cutAt;
    this.pauseAt = pauseAt;
    this.sent = 0; // bytes forwarded from clients to Folio
    this.cuts = 0;
    this.held = 0; // bytes of the paused connection, never forwarded
    this.paused = false;
    this.sockets = new Set();
    this.server = net.createServer((client) => this.pipe(client));
  }

  listen() {
    return new Promise((resolve) => this.server.listen(0, "127.0.0.1", () => {
      this.base = `http://127.0.0.1:${this.server.address().port}`;
      resolve(this);
    }));
  }

  pipe(client) {
    const upstream = net.connect(this.targetPort, "127.0.0.1");
    this.sockets.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    let frozen = false;
    client.on("data", (chunk) => {
      if (frozen) {
        this.held += chunk.length;
        return;
      }
      this.sent += chunk.length;
      upstream.write(chunk);
      if (this.cutAt && !this.cuts && this.sent >= this.cutAt) {
        this.cuts++;
        end();
      } else if (this.pauseAt && !this.paused && this.sent >= this.pauseAt) {
        this.paused = frozen = true;
      }
    });
    upstream.on("data", (chunk) => client.write(chunk));
    client.on("close", end);
    upstream.on("close", end);
    client.on("error", end);
    upstream.on("error", end);
  }

  close() {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(resolve));
  }
}

const portOf = (base) => Number(new URL(base).port);

// ---------------------------------------------------------------------------
// Checks of a finished upload.

// verify GETs the finished upload's URL (the /api/v1/upload result) and
// downloads the file from its link; both MD5s must be the source's.
async function verify(uploadUrl, auth, file) {
  const res = await fetch(uploadUrl, { headers: { ...auth, "Tus-Resumable": "1.0.0", Accept: "application/json" } });
  const body = await res.json().catch(() => null);
  check(res.status === 200 && body && body.status === true && body.data,
    `GET ${uploadUrl}: HTTP ${res.status} ${JSON.stringify(body)}`);
  check(body.data.md5 === file.md5, `data.md5 ${body.data.md5}, the source's ${file.md5}`);
  check(body.data.size === file.size, `data.size ${body.data.size}, the source's ${file.size}`);
  const link = body.data.links && body.data.links.url;
  check(link, `no links.url in ${JSON.stringify(body.data)}`);
  const got = await fetch(link, { headers: auth });
  check(got.status === 200, `GET ${link}: HTTP ${got.status}`);
  const bytes = Buffer.from(await got.arrayBuffer());
  check(md5(bytes) === file.md5, `the bytes of ${link}: MD5 ${md5(bytes)} (${bytes.length} bytes), the source's ${file.md5}`);
  return body.data;
}

async function head(uploadUrl, auth) {
  const res = await fetch(uploadUrl, { method: "HEAD", headers: { ...auth, "Tus-Resumable": "1.0.0" } });
  check(res.status === 200 || res.status === 204, `HEAD ${uploadUrl}: HTTP ${res.status}`);
  return Number(res.headers.get("Upload-Offset"));
}

// tusUpload runs one tus-js-client upload to its end (or until stop()
// says so, then aborts without terminating) and resolves with its URL.
function tusUpload(file, opts, stop) {
  return new Promise((resolve, reject) => {
    const up = new tus.Upload(file.bytes, {
      chunkSize: 5 * MiB,
      retryDelays: [0, 200, 500, 1000, 2000],
      metadata: { filename: file.name, filetype: "application/octet-stream" },
      ...opts,
      onError: reject,
      onSuccess: () => resolve(up.url),
      onChunkComplete: (_size, accepted) => {
        if (stop && stop(accepted)) up.abort(false).then(() => resolve(up.url), reject);
      },
    });
    up.start();
  });
}

// ---------------------------------------------------------------------------
// Steps

async function stepCut(ctx) {
  const file = makeFile("cut.bin", 50 * MB);
  const proxy = await new Proxy(portOf(BASE), { cutAt: 20 * MB }).listen();
  try {
    const t0 = performance.now();
    const url = await tusUpload(file, { endpoint: proxy.base + "/api/v1/tus/", headers: ctx.bearer });
    const secs = (performance.now() - t0) / 1000;
    check(proxy.cuts === 1, `the proxy cut ${proxy.cuts} connections, want 1`);
    // A restart from zero would send the 20 MB before the cut again.
    check(proxy.sent < file.size + 12 * MiB, `${proxy.sent} bytes passed the proxy for ${file.size}: the upload started again`);
    await verify(url, ctx.bearer, file);
    return `50 MB, one cut after 20 MB, ${(proxy.sent / MB).toFixed(1)} MB through the proxy, ${(file.size / MB / secs).toFixed(1)} MB/s`;
  } finally {
    await proxy.close();
  }
}

async function stepOtherProcess(ctx) {
  const baseB = env("BASE_B").replace(/\/+$/, "");
  const file = makeFile("across.bin", 50 * MB);
  const urlA = await tusUpload(file, { endpoint: BASE + "/api/v1/tus/", headers: ctx.bearer },
    (accepted) => accepted >= 0.4 * file.size);
  check(urlA, "process A gave no upload URL");
  const urlB = baseB + new URL(urlA).pathname;
  const before = await head(urlB, ctx.bearer);
  check(before >= 0.4 * file.size && before < file.size, `B reports offset ${before} of ${file.size} before it continues`);
  let firstOffset = -1;
  const url = await tusUpload(file, {
    uploadUrl: urlB, headers: ctx.bearer,
    onBeforeRequest: (req) => {
      if (req.getMethod() === "PATCH" && firstOffset < 0) firstOffset = Number(req.getHeader("Upload-Offset"));
    },
  });
  check(firstOffset === before, `B's first PATCH was at offset ${firstOffset}, B's HEAD said ${before}`);
  await verify(url, ctx.bearer, file);
  return `50 MB, ${(before / MB).toFixed(1)} MB sent to A, the rest to B`;
}

async function newBrowserPage(ctx, base) {
  if (!ctx.browser) {
    ctx.browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
  }
  const context = await ctx.browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (err) => problems.push(`uncaught: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console: ${msg.text()}`);
  });
  await page.goto(base + "/console/login");
  await page.fill("#login", USERNAME);
  await page.fill("#password", PASSWORD);
  await Promise.all([page.waitForNavigation(), page.click('form[action="/console/login"] button[type="submit"]')]);
  check(!new URL(page.url()).pathname.startsWith("/console/login"), `sign-in stayed on ${page.url()}`);
  return { context, page, problems };
}

async function stepUppy(ctx) {
  const file = makeFile("uppy.bin", 10 * MB);
  const bundle = readFileSync(require.resolve("uppy/dist/uppy.min.js"));
  const { context, page, problems } = await newBrowserPage(ctx, BASE);
  try {
    // The bundle is answered by the test itself under Folio's origin, so
    // the page's CSP (script-src 'self') stays as it is.
    await page.route(BASE + "/__tus-test__/uppy.min.js",
      (route) => route.fulfill({ status: 200, contentType: "text/javascript", body: bundle }));
    await page.goto(BASE + "/console/upload");
    await page.addScriptTag({ url: BASE + "/__tus-test__/uppy.min.js" });
    // The file is chosen as a person would, in a file input of our own.
    await page.evaluate(() => {
      const input = document.createElement("input");
      input.type = "file";
      input.id = "tus-test-file";
      document.body.appendChild(input);
    });
    await page.setInputFiles("#tus-test-file", file.path);
    const got = await page.evaluate(async ({ name }) => {
      const blob = document.getElementById("tus-test-file").files[0];
      const U = window.Uppy;
      const uppy = new U.Uppy({ autoProceed: false }).use(U.Tus, {
        endpoint: "/api/v1/tus/",
        chunkSize: 4 << 20,
        retryDelays: [0, 500, 1000],
        allowedMetaFields: ["filename", "filetype"],
      });
      uppy.addFile({ name, type: "application/octet-stream", data: blob,
        meta: { filename: name, filetype: "application/octet-stream" } });
      const result = await uppy.upload();
      const ok = result.successful || [];
      return {
        url: ok.length ? ok[0].uploadURL || (ok[0].tus && ok[0].tus.uploadUrl) : "",
        failed: (result.failed || []).map((f) => String(f.error)),
      };
    }, { name: file.name });
    check(got.url && !got.failed.length, `Uppy's upload failed: ${JSON.stringify(got)}`);
    // The result is read with the browser's session, as the page would.
    const res = await page.evaluate(async (url) => {
      const r = await fetch(url, { headers: { "Tus-Resumable": "1.0.0", Accept: "application/json" } });
      return { status: r.status, body: await r.text() };
    }, got.url);
    check(res.status === 200, `GET ${got.url} with the session: HTTP ${res.status} ${res.body}`);
    check(JSON.parse(res.body).data.md5 === file.md5, `the session's GET reports another MD5: ${res.body}`);
    await verify(got.url, ctx.bearer, file);
    check(!problems.length, problems.join("\n"));
    return `10 MB with the session cookie, ${got.url.replace(BASE, "")}`;
  } finally {
    await context.close();
  }
}

async function stepConsole(ctx) {
  const file = makeFile("console.bin", 40 * MB);
  // The browser loads the console through the proxy, which holds the
  // upload after ~16 MB until the page has been reloaded.
  const proxy = await new Proxy(portOf(BASE), { pauseAt: 16 * MB }).listen();
  const { context, page, problems } = await newBrowserPage(ctx, proxy.base);
  try {
    const patches = [];
    page.on("request", (req) => {
      if (req.method() === "PATCH") patches.push(Number(req.headers()["upload-offset"]));
    });
    await page.goto(proxy.base + "/console/upload");
    await page.setInputFiles("#upload-input", file.path);
    const deadline = Date.now() + 30_000;
    while (!(proxy.paused && proxy.held > 0)) {
      check(Date.now() < deadline, `the upload did not reach the proxy's pause (${proxy.sent} bytes sent)`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const stored = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("folio-tus:"))
      .map((k) => JSON.parse(localStorage.getItem(k)).url));
    check(stored.length === 1, `localStorage holds ${stored.length} upload URLs, want 1`);
    await page.reload();
    const url = stored[0].replace(proxy.base, BASE);
    // The reload dropped the held PATCH; what the server kept of it is
    // its offset once the server has seen the connection close.
    let before = -1;
    for (let prev = -2; before !== prev;) {
      prev = before;
      await new Promise((r) => setTimeout(r, 300));
      before = await head(url, ctx.bearer);
    }
    check(before > 0 && before < file.size, `the server's offset after the reload is ${before}`);
    const sentBefore = proxy.sent;
    const patchesBefore = patches.length;
    // A stored file's row keeps only its link, so the progress line
    // (percent, MB, MB/s) is recorded while it is shown.
    await page.evaluate(() => {
      window.__stats = [];
      new MutationObserver(() => {
        for (const s of document.querySelectorAll("#upload-queue .upload-stats")) {
          if (s.textContent && window.__stats.at(-1) !== s.textContent) window.__stats.push(s.textContent);
        }
      }).observe(document.getElementById("upload-queue"), { subtree: true, childList: true, characterData: true });
    });
    await page.setInputFiles("#upload-input", file.path);
    const card = page.locator("#upload-queue .upload-item").last();
    await card.locator('input[data-format="url"]').waitFor({ timeout: 60_000 }).catch(async () => {
      throw new Failure(`the console's card did not finish: ${await card.innerText().catch(() => "?")}`);
    });
    const resumedAt = Number(await card.getAttribute("data-resumed-at"));
    check(resumedAt === before, `the console resumed at ${resumedAt}, the server's offset was ${before}`);
    const after = patches.slice(patchesBefore);
    check(after.length && after[0] === before, `the PATCHes after the reload started at ${after[0]}, want ${before}`);
    const resent = proxy.sent - sentBefore;
    check(resent < file.size - before + 2 * MiB, `${resent} bytes after the reload for the ${file.size - before} missing`);
    const link = await card.locator('input[data-format="url"]').inputValue();
    const shown = await page.evaluate(() => window.__stats);
    const stats = shown.at(-1) || "";
    check(/^\d+% · [\d.]+ MB of [\d.]+ MB/.test(stats), `the card's progress line said ${JSON.stringify(shown.slice(-3))}`);
    const left = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("folio-tus:")).length);
    check(left === 0, `localStorage still holds ${left} upload URLs after the upload finished`);
    await verify(url, ctx.bearer, file);
    const bytes = Buffer.from(await (await fetch(link.replace(proxy.base, BASE))).arrayBuffer());
    check(md5(bytes) === file.md5, `the card's link serves MD5 ${md5(bytes)}, the source's ${file.md5}`);
    check(!problems.length, problems.join("\n"));
    return `40 MB, reloaded at ${(before / MB).toFixed(1)} MB, continued from there ("${stats}")`;
  } finally {
    await context.close();
    await proxy.close();
  }
}

// ---------------------------------------------------------------------------

const steps = { a: stepCut, b: stepOtherProcess, c: stepUppy, d: stepConsole };

async function main() {
  const cookie = await signIn(BASE);
  const ctx = { bearer: { Authorization: "Bearer " + (await apiToken(BASE, cookie)) } };
  let failed = 0;
  try {
    for (const letter of STEPS) {
      const step = steps[letter];
      if (!step) throw new Error(`unknown step ${letter}`);
      const t0 = performance.now();
      try {
        const note = await step(ctx);
        console.log(`   ok ${letter}. ${note} (${((performance.now() - t0) / 1000).toFixed(1)}s)`);
      } catch (err) {
        failed++;
        console.log(`   FAIL ${letter}. ${err instanceof Failure ? err.message : err.stack || err}`);
      }
    }
  } finally {
    if (ctx.browser) await ctx.browser.close();
  }
  console.log(`${STEPS.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err.stack || err);
  process.exit(1);
});
