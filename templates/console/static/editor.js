// The Markdown editor of the blog's console (docs/console.md#posts-and-the-editor),
// for any form that carries these attributes:
//
//   <form data-editor data-draft-key="post:<id>|post:new|page:<id>|page:new"
//         [data-saved="more keys"]>   the page follows a save: drop the draft
//   <textarea data-md-source>         the Markdown, with a formatting toolbar and
//                                     shortcuts above it; images dropped or pasted upload
//   <div data-md-preview>             the live preview  (+ [data-md-status])
//   <input type="datetime-local" data-local-time="hidden-id">  shown in local
//                                     time, sent as RFC 3339 in the hidden field
//   <input data-tags="datalist-id">   comma-separated tags, shown as chips; Enter
//                                     or a comma adds one, a pasted list adds each
//   <button data-upload-into="id">    uploads a file and puts its URL in #id
//   <button data-ai-summary="id">     fills #id with a summary from the AI
//
// The slug is sent as the writer typed it: empty, the server makes one from
// the title (or keeps a published post's); the editor never fills it in.
// Without this script the form still works: the toolbar's Markdown is
// typed by hand, the date is read as UTC and the tags as a comma-separated
// list.
"use strict";

(() => {
  const form = document.querySelector("form[data-editor]");
  if (!form) return;
  const tokenField = form.querySelector('input[name="form_token"]') || document.querySelector('input[name="form_token"]');
  const token = tokenField ? tokenField.value : "";
  const source = form.querySelector("[data-md-source]");
  const preview = document.querySelector("[data-md-preview]");
  const previewStatus = document.querySelector("[data-md-status]");
  const uploadStatus = form.querySelector("[data-upload-status]");
  const title = form.querySelector('input[name="title"]');
  const draftKey = "folio:draft:" + (form.dataset.draftKey || location.pathname);

  for (const note of document.querySelectorAll(".editor-nojs")) note.hidden = true;

  let submitting = false;
  const changed = () => saveDraftSoon();

  // -- Live preview, by the blog's own renderer.
  let previewTimer = 0;
  let previewSeq = 0;
  async function renderPreview() {
    if (!source || !preview) return;
    const seq = ++previewSeq;
    if (previewStatus) previewStatus.textContent = "Updating preview…";
    try {
      const res = await fetch("/console/blog/preview", {
        method: "POST",
        headers: { "X-Form-Token": token, Accept: "application/json" },
        body: new URLSearchParams({ content_markdown: source.value }),
        credentials: "same-origin",
      });
      if (seq !== previewSeq) return;
      if (!res.ok) {
        if (previewStatus) previewStatus.textContent = res.status === 413 ? "The text is too long to preview." : "The preview failed (HTTP " + res.status + ").";
        return;
      }
      const data = await res.json();
      if (seq !== previewSeq) return;
      // The HTML comes from the server's Markdown renderer, which escapes
      // raw HTML and drops unsafe links: the same HTML the site shows.
      preview.innerHTML = data.html;
      if (previewStatus) previewStatus.textContent = "Preview updated";
    } catch (err) {
      if (seq === previewSeq && previewStatus) previewStatus.textContent = "The preview failed: the connection was lost.";
    }
  }
  const previewSoon = () => {
    clearTimeout(previewTimer);
    previewTimer = setTimeout(renderPreview, 300);
  };
  if (source) source.addEventListener("input", previewSoon);

  // -- Uploads, through the upload API with the session cookie.
  function say(text) {
    if (uploadStatus) uploadStatus.textContent = text;
  }
  async function upload(file) {
    const data = new FormData();
    data.append("file", file, file.name);
    // A post's readers must see its images, whatever the default.
    data.append("visibility", "unlisted");
    const res = await fetch("/api/v1/upload", {
      method: "POST", body: data, credentials: "same-origin", headers: { Accept: "application/json" },
    });
    let body = null;
    try {
      body = await res.json();
    } catch (err) {
      body = null;
    }
    if (res.ok && body && body.status && body.data && body.data.links && body.data.links.url) return body.data.links.url;
    throw new Error(body && body.message ? body.message : "HTTP " + res.status);
  }

  // Images dropped on or pasted into the Markdown go in at the caret.
  const altOf = (name) => (name || "image").replace(/\.[A-Za-z0-9]+$/, "").replace(/[[\]\\]/g, "");
  function insertAtCaret(text) {
    const start = source.selectionStart ?? source.value.length;
    const end = source.selectionEnd ?? start;
    edit(start, end, text, start + text.length, start + text.length);
  }
  function replaceText(from, to) {
    const i = source.value.indexOf(from);
    if (i < 0) return;
    const { selectionStart: s0, selectionEnd: e0 } = source;
    const shift = (p) => (p <= i ? p : Math.max(i, p + to.length - from.length));
    if (document.activeElement === source) {
      edit(i, i + from.length, to, shift(s0), shift(e0));
    } else {
      // The writer is in another field: the text changes without taking
      // the focus from them.
      source.setRangeText(to, i, i + from.length, "preserve");
      source.dispatchEvent(new Event("input", { bubbles: true }));
    }
  }
  let uploadSeq = 0;
  async function uploadImages(files) {
    for (const file of files) {
      const name = altOf(file.name);
      const placeholder = "![Uploading " + name + "…" + (++uploadSeq > 1 ? " " + uploadSeq : "") + "]()";
      insertAtCaret(placeholder);
      source.dispatchEvent(new Event("input", { bubbles: true }));
      say("Uploading " + file.name + "…");
      try {
        const url = await upload(file);
        replaceText(placeholder, "![" + name + "](" + url + ")");
        say("Uploaded " + file.name + ".");
      } catch (err) {
        replaceText(placeholder, "");
        say("Could not upload " + file.name + ": " + err.message);
      }
    }
  }
  const imagesOf = (list) => [...(list || [])].filter((f) => f.type.startsWith("image/"));
  if (source) {
    source.addEventListener("dragover", (event) => {
      if (event.dataTransfer && [...event.dataTransfer.types].includes("Files")) event.preventDefault();
    });
    source.addEventListener("drop", (event) => {
      const files = imagesOf(event.dataTransfer && event.dataTransfer.files);
      if (!files.length) return;
      event.preventDefault();
      source.focus();
      uploadImages(files);
    });
    source.addEventListener("paste", (event) => {
      const files = imagesOf(event.clipboardData && event.clipboardData.files);
      if (!files.length) return;
      event.preventDefault();
      uploadImages(files);
    });
  }

  // -- Editing the Markdown. Every change goes through edit(): the
  // browser's insertText command keeps the textarea's own undo history
  // (Ctrl+Z undoes a toolbar action like typing); where it is missing,
  // setRangeText changes the text, without undo.
  function edit(start, end, text, selStart, selEnd) {
    if (document.activeElement !== source) source.focus();
    source.setSelectionRange(start, end);
    let done = false;
    try {
      done = document.execCommand("insertText", false, text) && source.value.slice(start, start + text.length) === text;
    } catch (err) {
      done = false;
    }
    if (!done) {
      source.setRangeText(text, start, end, "end");
      source.dispatchEvent(new Event("input", { bubbles: true }));
    }
    source.setSelectionRange(selStart, selEnd);
  }

  // wrap puts before and after around the selection (or a placeholder,
  // then selected), or takes them away when they are already there.
  function wrap(before, after, placeholder) {
    const { selectionStart: s, selectionEnd: e, value: v } = source;
    const sel = v.slice(s, e);
    if (sel.length >= before.length + after.length && sel.startsWith(before) && sel.endsWith(after)) {
      const inner = sel.slice(before.length, sel.length - after.length);
      edit(s, e, inner, s, s + inner.length);
    } else if (v.slice(s - before.length, s) === before && v.slice(e, e + after.length) === after) {
      edit(s - before.length, e + after.length, sel, s - before.length, e - before.length);
    } else {
      const text = sel || placeholder;
      edit(s, e, before + text + after, s + before.length, s + before.length + text.length);
    }
  }

  // lines is the start and end of the whole lines the selection touches.
  function lines() {
    const { selectionStart: s, selectionEnd: e, value: v } = source;
    const start = v.lastIndexOf("\n", s - 1) + 1;
    const last = e > s && v[e - 1] === "\n" ? e - 1 : e;
    let end = v.indexOf("\n", last);
    if (end < 0) end = v.length;
    return [start, end];
  }

  // prefixLines gives each selected line the prefix made by mark (its
  // number), or takes it away when every non-empty line has one; other
  // list or quote marks give way, so a bulleted list becomes numbered.
  const lineMark = /^(\s*)(?:[-*+] |\d+[.)] |> ?)/;
  function prefixLines(mark, has) {
    const [start, end] = lines();
    const old = source.value.slice(start, end).split("\n");
    const filled = old.filter((l) => l.trim() !== "");
    const remove = filled.length > 0 && filled.every((l) => has.test(l));
    let n = 0;
    const out = old.map((l) => {
      if (remove) return l.replace(has, "$1");
      if (l.trim() === "" && old.length > 1) return l;
      return l.replace(lineMark, "$1").replace(/^(\s*)/, "$1" + mark(++n));
    }).join("\n");
    const single = source.selectionStart === source.selectionEnd && old.length === 1;
    edit(start, end, out, single ? start + out.length : start, start + out.length);
  }

  // heading sets the current line's level (0: none); cycle goes from
  // none to ## to ### and back.
  function heading(level) {
    const [start, end] = lines();
    const line = source.value.slice(start, end).split("\n")[0];
    const m = /^(#{1,6})\s+/.exec(line);
    const now = m ? m[1].length : 0;
    if (level === undefined) level = now === 0 ? 2 : now === 2 ? 3 : 0;
    else if (level === now) level = 0;
    const text = (level ? "#".repeat(level) + " " : "") + line.slice(m ? m[0].length : 0);
    edit(start, start + line.length, text, start + text.length, start + text.length);
  }

  function link() {
    const { selectionStart: s, selectionEnd: e, value: v } = source;
    const sel = v.slice(s, e);
    if (/^(https?:\/\/|mailto:|\/)\S*$/.test(sel)) {
      // A URL selected: it becomes the target, the caret goes to the text.
      edit(s, e, "[](" + sel + ")", s + 1, s + 1);
      return;
    }
    const label = sel || "link text";
    const text = "[" + label + "](https://)";
    const url = s + label.length + 3;
    edit(s, e, text, sel ? url : s + 1, sel ? url + 8 : s + 1 + label.length);
  }

  function codeBlock() {
    const [start, end] = lines();
    const body = source.value.slice(start, end);
    const text = "```\n" + body + "\n```";
    // The caret after the opening fence, to type the language.
    edit(start, end, text, start + 3, start + 3);
  }

  const isMac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || "");
  const mod = isMac ? "⌘" : "Ctrl";
  // The actions of the toolbar, in its order, with their shortcuts (each
  // button's visible text is part of its name, for voice control); keys
  // as the title shows them after Ctrl (⌘ on a Mac); a letter matched as
  // typed (any layout), a digit by its key's place (Shift+8 types "*" on
  // one keyboard and "(" on another).
  const actions = [
    { id: "bold", label: "Bold", text: "B", keys: ["B"], letter: "b", run: () => wrap("**", "**", "bold text") },
    { id: "italic", label: "Italic", text: "I", cls: "md-i", keys: ["I"], letter: "i", run: () => wrap("_", "_", "italic text") },
    { id: "heading", label: "Heading", text: "H", keys: ["Alt+2", "Alt+3"], run: () => heading(),
      title: "Heading: ## then ### then none" },
    { id: "link", label: "Link", text: "Link", keys: ["K"], letter: "k", run: link },
    "sep",
    { id: "bulleted", label: "Bulleted list", text: "• List", keys: ["Shift+8"], digit: "Shift+Digit8",
      run: () => prefixLines(() => "- ", /^(\s*)[-*+] /) },
    { id: "numbered", label: "1. List, numbered", text: "1. List", keys: ["Shift+7"], digit: "Shift+Digit7",
      run: () => prefixLines((n) => n + ". ", /^(\s*)\d+[.)] /) },
    { id: "quote", label: "Quote", text: "❝", keys: ["Shift+9"], digit: "Shift+Digit9", run: () => prefixLines(() => "> ", /^(\s*)> ?/) },
    "sep",
    { id: "code", label: "Inline code", text: "code", cls: "md-code", keys: ["E"], letter: "e", run: () => wrap("`", "`", "code") },
    { id: "codeblock", label: "Code block", text: "```", cls: "md-code", keys: ["Shift+E"], shiftLetter: "e", run: codeBlock },
    { id: "image", label: "Upload an image", text: "Image", run: () => imagePicker && imagePicker.click() },
  ];
  let imagePicker = null;
  if (source) {
    const bar = document.createElement("div");
    bar.className = "md-toolbar";
    bar.setAttribute("role", "toolbar");
    bar.setAttribute("aria-label", "Formatting");
    bar.setAttribute("aria-controls", source.id);
    const buttons = [];
    for (const a of actions) {
      if (a === "sep") {
        const sep = document.createElement("span");
        sep.className = "md-sep";
        sep.setAttribute("aria-hidden", "true");
        bar.append(sep);
        continue;
      }
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.md = a.id;
      b.textContent = a.text;
      if (a.cls) b.className = a.cls;
      b.setAttribute("aria-label", a.label);
      const keys = a.keys || [];
      b.title = (a.title || a.label) + (keys.length ? " (" + keys.map((k) => mod + "+" + k).join(", ") + ")" : "");
      if (keys.length) b.setAttribute("aria-keyshortcuts", keys.map((k) => (isMac ? "Meta+" : "Control+") + k).join(" "));
      b.tabIndex = buttons.length === 0 ? 0 : -1;
      // The selection stays in the text while the button is pressed.
      b.addEventListener("mousedown", (event) => event.preventDefault());
      b.addEventListener("click", () => a.run());
      buttons.push(b);
      bar.append(b);
    }
    // One tab stop; the arrow keys, Home and End move along the toolbar.
    bar.addEventListener("keydown", (event) => {
      const i = buttons.indexOf(document.activeElement);
      if (i < 0) return;
      const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: buttons.length - 1 }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      const next = buttons[(to + buttons.length) % buttons.length];
      for (const b of buttons) b.tabIndex = b === next ? 0 : -1;
      next.focus();
    });
    source.before(bar);

    imagePicker = document.createElement("input");
    imagePicker.type = "file";
    imagePicker.accept = "image/*";
    imagePicker.multiple = true;
    imagePicker.hidden = true;
    imagePicker.tabIndex = -1;
    imagePicker.setAttribute("aria-hidden", "true");
    bar.after(imagePicker);
    imagePicker.addEventListener("change", () => {
      const files = imagesOf(imagePicker.files);
      imagePicker.value = "";
      if (files.length) {
        source.focus();
        uploadImages(files);
      }
    });

    const hint = document.getElementById(source.getAttribute("aria-describedby") || "");
    if (hint) {
      hint.textContent = "Markdown. " + mod + "+B bold, " + mod + "+I italic, " + mod + "+K link, " + mod + "+E code; " +
        "the toolbar's buttons name the rest. Drop or paste images here to upload them.";
    }

    source.addEventListener("keydown", (event) => {
      const primary = isMac ? event.metaKey && !event.ctrlKey : event.ctrlKey && !event.metaKey;
      if (!primary || (event.getModifierState && event.getModifierState("AltGraph"))) return;
      let run = null;
      if (event.altKey && !event.shiftKey) {
        if (event.code === "Digit2") run = () => heading(2);
        if (event.code === "Digit3") run = () => heading(3);
      } else if (!event.altKey) {
        const key = event.key.toLowerCase();
        const digit = (event.shiftKey ? "Shift+" : "") + event.code;
        const a = actions.find((x) => x !== "sep" &&
          (event.shiftKey ? x.shiftLetter === key || x.digit === digit : x.letter === key));
        if (a) run = a.run;
      }
      if (!run) return;
      event.preventDefault();
      run();
    });
  }

  // A button that uploads a file and puts its URL in a field.
  for (const button of form.querySelectorAll("button[data-upload-into]")) {
    const target = document.getElementById(button.dataset.uploadInto);
    if (!target) continue;
    button.hidden = false;
    const picker = document.createElement("input");
    picker.type = "file";
    picker.accept = "image/*";
    picker.hidden = true;
    picker.tabIndex = -1;
    picker.setAttribute("aria-hidden", "true");
    button.after(picker);
    button.addEventListener("click", () => picker.click());
    picker.addEventListener("change", async () => {
      const file = picker.files && picker.files[0];
      if (!file) return;
      const label = button.textContent;
      button.disabled = true;
      button.textContent = "Uploading…";
      try {
        target.value = await upload(file);
        target.dispatchEvent(new Event("input", { bubbles: true }));
        say("Uploaded " + file.name + ".");
      } catch (err) {
        say("Could not upload " + file.name + ": " + err.message);
      } finally {
        button.disabled = false;
        button.textContent = label;
        picker.value = "";
      }
    });
  }

  // -- The AI summary: the existing admin endpoint, with the unsaved text.
  for (const button of form.querySelectorAll("button[data-ai-summary]")) {
    const target = document.getElementById(button.dataset.aiSummary);
    const status = button.parentElement.querySelector("[data-ai-status]");
    if (!target) continue;
    button.addEventListener("click", async () => {
      button.disabled = true;
      if (status) status.textContent = "Asking the AI…";
      try {
        const res = await fetch("/api/v1/admin/ai/summary", {
          method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify({ title: title ? title.value : "", content_markdown: source ? source.value : "" }),
        });
        const body = await res.json().catch(() => null);
        if (!res.ok || !body || !body.data || typeof body.data.summary !== "string") {
          throw new Error(body && body.msg ? body.msg : "HTTP " + res.status);
        }
        target.value = body.data.summary;
        target.dispatchEvent(new Event("input", { bubbles: true }));
        if (status) status.textContent = "Summary filled in; save to keep it.";
      } catch (err) {
        if (status) status.textContent = "No summary: " + err.message;
      } finally {
        button.disabled = false;
      }
    });
  }

  // -- Dates in local time. The field shows the server's UTC value in the
  // writer's zone; on submit the hidden field carries it as RFC 3339.
  const pad = (n) => String(n).padStart(2, "0");
  const localOf = (d) => d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + "T" + pad(d.getHours()) + ":" + pad(d.getMinutes());
  const localTimes = [...form.querySelectorAll("input[data-local-time]")];
  for (const input of localTimes) {
    if (input.value) {
      const d = new Date(input.value + "Z");
      if (!Number.isNaN(d.getTime())) input.value = localOf(d);
    }
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "local time";
    const note = form.querySelector("label[for='" + input.id + "'] [data-local-note]");
    if (note) note.textContent = "Your time (" + zone + "). A future time schedules a published post; empty: when it is published.";
  }
  function stampLocalTimes() {
    for (const input of localTimes) {
      const hidden = document.getElementById(input.dataset.localTime);
      if (!hidden) continue;
      const d = input.value ? new Date(input.value) : null;
      hidden.value = d && !Number.isNaN(d.getTime()) ? d.toISOString().replace(/\.\d{3}Z$/, "Z") : "";
    }
  }

  // -- Tags as chips, with suggestions of the existing ones.
  const tagWidgets = [];
  for (const field of form.querySelectorAll("input[data-tags]")) {
    const names = () => field.value.split(",").map((s) => s.trim()).filter(Boolean);
    const box = document.createElement("div");
    box.className = "tag-box";
    const list = document.createElement("ul");
    list.className = "chips";
    list.setAttribute("aria-label", "Tags of this post");
    const entry = document.createElement("input");
    entry.type = "text";
    entry.id = field.id + "-entry";
    entry.setAttribute("list", field.dataset.tags);
    entry.autocomplete = "off";
    entry.placeholder = "Add a tag";
    if (field.getAttribute("aria-describedby")) entry.setAttribute("aria-describedby", field.getAttribute("aria-describedby"));
    if (field.getAttribute("aria-invalid")) entry.setAttribute("aria-invalid", field.getAttribute("aria-invalid"));
    const label = form.querySelector("label[for='" + field.id + "']");
    if (label) label.htmlFor = entry.id;
    box.append(list, entry);
    field.after(box);
    field.type = "hidden";

    const set = (list) => {
      const seen = new Set();
      field.value = list.filter((n) => {
        const k = n.toLowerCase();
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      }).join(", ");
      draw();
      changed();
    };
    function draw() {
      list.replaceChildren();
      for (const name of names()) {
        const li = document.createElement("li");
        li.className = "chip";
        const text = document.createElement("span");
        text.textContent = name;
        const remove = document.createElement("button");
        remove.type = "button";
        remove.className = "chip-remove";
        remove.textContent = "×";
        remove.setAttribute("aria-label", "Remove tag " + name);
        remove.addEventListener("click", () => {
          set(names().filter((n) => n !== name));
          entry.focus();
        });
        li.append(text, remove);
        list.append(li);
      }
    }
    const take = () => {
      const add = entry.value.split(",").map((s) => s.trim()).filter(Boolean);
      entry.value = "";
      if (add.length) set(names().concat(add));
    };
    entry.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === ",") {
        event.preventDefault();
        take();
      } else if (event.key === "Backspace" && entry.value === "" && names().length) {
        set(names().slice(0, -1));
      }
    });
    // A pasted list ("a, b, c", or one a line) adds each tag at once.
    entry.addEventListener("paste", (event) => {
      const text = event.clipboardData ? event.clipboardData.getData("text") : "";
      if (!/[,\n]/.test(text)) return;
      event.preventDefault();
      const add = (entry.value + text).split(/[,\n]/).map((t) => t.trim()).filter(Boolean);
      entry.value = "";
      if (add.length) set(names().concat(add));
    });
    // A comma that arrives without its key (a phone's keyboard, an input
    // method) commits the tags before it too.
    entry.addEventListener("input", () => {
      const at = entry.value.lastIndexOf(",");
      if (at < 0) return;
      const add = entry.value.slice(0, at).split(",").map((t) => t.trim()).filter(Boolean);
      entry.value = entry.value.slice(at + 1).trimStart();
      if (add.length) set(names().concat(add));
    });
    const hint = document.getElementById(field.getAttribute("aria-describedby") || "");
    if (hint) hint.textContent = "Enter or a comma adds a tag; a pasted list adds each. A new name creates the tag.";
    entry.addEventListener("change", () => {
      // A suggestion picked from the list arrives as a change.
      if (entry.value.trim()) take();
    });
    form.addEventListener("submit", take);
    draw();
    tagWidgets.push(draw);
  }

  // -- Unsaved changes kept in localStorage under the draft key.
  const fields = () => [...form.elements].filter((el) => el.name && el.name !== "form_token" &&
    el.type !== "file" && el.type !== "submit" && el.type !== "button" &&
    !localTimes.some((i) => i.dataset.localTime === el.id));
  const snapshot = () => {
    const out = {};
    for (const el of fields()) out[el.name] = el.type === "checkbox" ? el.checked : el.value;
    return out;
  };
  const restore = (values) => {
    for (const el of fields()) {
      if (!(el.name in values)) continue;
      if (el.type === "checkbox") el.checked = !!values[el.name];
      else el.value = values[el.name];
    }
    for (const draw of tagWidgets) draw();
  };
  const storage = (() => {
    try {
      return window.localStorage;
    } catch (err) {
      return null;
    }
  })();
  let draftTimer = 0;
  function saveDraftSoon() {
    clearTimeout(draftTimer);
    draftTimer = setTimeout(saveDraft, 400);
  }
  function saveDraft() {
    if (!storage || submitting) return;
    try {
      storage.setItem(draftKey, JSON.stringify({ at: Date.now(), fields: snapshot() }));
    } catch (err) {
      // Storage full or refused: the form still works, without a safety net.
    }
  }
  const original = snapshot();
  if (storage) {
    if (form.hasAttribute("data-saved")) {
      storage.removeItem(draftKey);
      for (const k of (form.dataset.saved || "").split(/\s+/).filter(Boolean)) storage.removeItem("folio:draft:" + k);
    } else {
      let draft = null;
      try {
        draft = JSON.parse(storage.getItem(draftKey) || "null");
      } catch (err) {
        draft = null;
      }
      if (draft && draft.fields && JSON.stringify(draft.fields) !== JSON.stringify(original)) {
        restore(draft.fields);
        const notice = document.createElement("div");
        notice.className = "flash draft-notice";
        notice.setAttribute("role", "status");
        const at = new Date(draft.at);
        const text = document.createElement("span");
        text.textContent = "Restored unsaved changes from " + pad(at.getHours()) + ":" + pad(at.getMinutes()) + " — ";
        const discard = document.createElement("button");
        discard.type = "button";
        discard.className = "link";
        discard.textContent = "Discard";
        discard.addEventListener("click", () => {
          storage.removeItem(draftKey);
          restore(original);
          notice.remove();
          renderPreview();
          if (title) title.focus();
        });
        notice.append(text, discard);
        form.before(notice);
      }
    }
  }

  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
  form.addEventListener("submit", () => {
    submitting = true;
    clearTimeout(draftTimer);
    stampLocalTimes();
  });
  // Leaving asks first while the form differs from what the page loaded
  // (the saved post, or the empty form); submitting it never asks.
  const unsaved = () => JSON.stringify(snapshot()) !== JSON.stringify(original);
  window.addEventListener("beforeunload", (event) => {
    if (submitting || !unsaved()) return;
    saveDraft();
    event.preventDefault();
    event.returnValue = "";
  });

  if (source && source.value.trim() !== "") renderPreview();
})();
