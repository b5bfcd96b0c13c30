// Lighthouse on one post at a phone's width (scripts/lighthouse-test.sh
// runs it): only the audits the test reads, so that it stays quick. It
// fails unless "Properly size images" (uses-responsive-images) passes, and
// prints what the page weighs and when its largest picture is painted.
//
// Environment: URL, the post to audit; CHROME, the browser's path.
import lighthouse from "lighthouse";
import * as chromeLauncher from "chrome-launcher";

const url = process.env.URL;
if (!url) {
  console.error("lighthouse: URL is required");
  process.exit(2);
}
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME || "/usr/bin/chromium",
  chromeFlags: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
let failed = false;
try {
  const result = await lighthouse(url, {
    port: chrome.port,
    output: "json",
    logLevel: "error",
    formFactor: "mobile",
    onlyAudits: ["uses-responsive-images", "largest-contentful-paint", "total-byte-weight", "network-requests"],
  });
  const audits = result.lhr.audits;
  const sized = audits["uses-responsive-images"];
  const items = sized.details?.items ?? [];
  const lcp = audits["largest-contentful-paint"];
  const weight = audits["total-byte-weight"];
  console.log(`lighthouse: ${result.lhr.lighthouseVersion}, mobile, ${url}`);
  console.log(`lighthouse: largest contentful paint ${lcp.displayValue}, total byte weight ${weight.numericValue} bytes`);
  for (const r of audits["network-requests"].details?.items ?? []) {
    if (r.resourceType === "Image") {
      console.log(`lighthouse: image ${r.url} ${r.transferSize} bytes`);
    }
  }
  console.log(`lighthouse: uses-responsive-images score ${sized.score} (${sized.scoreDisplayMode}), ${items.length} finding(s)`);
  for (const it of items) {
    console.log(`lighthouse:   ${it.url}: ${it.totalBytes} bytes, ${it.wastedBytes} wasted`);
  }
  if (sized.scoreDisplayMode === "error") {
    console.error(`lighthouse: FAIL: the audit failed to run: ${sized.errorMessage}`);
    failed = true;
  } else if (!(sized.score === 1 || (sized.scoreDisplayMode === "notApplicable" && items.length === 0))) {
    console.error("lighthouse: FAIL: Lighthouse finds images that could be sized properly");
    failed = true;
  }
} finally {
  await chrome.kill();
}
process.exit(failed ? 1 : 0);
