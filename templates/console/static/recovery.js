// The recovery codes page: copy the codes, or download them as a text
// file, so that they reach a password manager or a printer whole. Without
// this script the buttons stay hidden and the codes are text to select.
"use strict";

(() => {
  const list = document.getElementById("recovery-codes");
  const actions = document.getElementById("recovery-actions");
  const status = document.getElementById("recovery-status");
  if (!list || !actions || !status) return;
  const codes = Array.from(list.querySelectorAll("li"), (li) => li.textContent.trim()).filter(Boolean);
  if (!codes.length) return;
  const user = list.dataset.user || "account";
  const say = (text) => { status.textContent = text; };
  actions.hidden = false;

  document.getElementById("recovery-copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(codes.join("\n") + "\n");
      say(`Copied ${codes.length} ${codes.length === 1 ? "code" : "codes"}.`);
    } catch {
      // No clipboard (an insecure origin, a refused permission): select
      // them for Ctrl+C instead.
      const range = document.createRange();
      range.selectNodeContents(list);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      say("Could not copy: the codes are selected, press Ctrl+C (⌘C on a Mac).");
    }
  });

  document.getElementById("recovery-download").addEventListener("click", () => {
    const name = `folio-recovery-codes-${user}.txt`;
    const text = [
      `Recovery codes for ${user}${list.dataset.site ? ` at ${list.dataset.site}` : ""}`,
      `Made ${new Date().toISOString().slice(0, 10)}. Each code signs you in once in place of a code from your app.`,
      "",
      ...codes,
      "",
    ].join("\n");
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = name;
    a.hidden = true;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    say(`Downloaded ${name}.`);
  });
})();
