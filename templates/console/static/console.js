// Behaviour shared by every console page, for what a form cannot do alone:
// the phone's Menu button, copy buttons (of a field or of a <pre>),
// confirmation of destructive actions, select-all boxes, file fields that
// refuse a file too large before it is sent, and POST forms that cannot be
// sent twice.
// Pages work without it; it only makes them quicker to use.
"use strict";

// On a phone the navigation folds away behind the Menu button (base.css
// hides it while the button is shown and says it is closed). The button
// is hidden in the HTML, so that without this script the navigation stays
// open.
(() => {
  const button = document.querySelector("button.nav-toggle[aria-controls]");
  const nav = button && document.getElementById(button.getAttribute("aria-controls"));
  if (!nav) return;
  const setOpen = (open) => button.setAttribute("aria-expanded", String(open));
  button.hidden = false;
  button.addEventListener("click", () => {
    // The navigation follows the button in the page, so Tab goes on
    // into it: the focus stays on the button, as a disclosure's does.
    setOpen(button.getAttribute("aria-expanded") !== "true");
  });
  // Escape closes an open menu and gives the focus back to its button.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || button.getAttribute("aria-expanded") !== "true") return;
    if (button.offsetParent === null) return; // a wide screen: no menu to close
    setOpen(false);
    button.focus();
  });
})();

// copyText writes text to the clipboard and says so on the button.
async function copyText(text, button) {
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "Copied";
  } catch (err) {
    button.textContent = "Press Ctrl+C";
  }
  setTimeout(() => { button.textContent = label; }, 1500);
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const field = document.getElementById(button.dataset.copy);
  if (!field) return;
  // A field copies its value; anything else (a <pre>) its text.
  if (typeof field.select === "function") {
    field.select();
    copyText(field.value, button);
  } else {
    copyText(field.textContent, button);
  }
});

// Forms marked data-confirm ask before they are sent.
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = event.submitter?.dataset.confirm || form.dataset.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});

// A checkbox with data-select-all="name" ticks every box of that name.
document.addEventListener("change", (event) => {
  const all = event.target.closest("input[data-select-all]");
  if (!all) return;
  for (const box of document.querySelectorAll(`input[type=checkbox][name="${all.dataset.selectAll}"]`)) {
    box.checked = all.checked;
  }
});

// A file field with data-max-size (bytes) refuses a larger file before the
// form is sent, the way the browser refuses an empty required field, with
// data-max-size-text naming the limit. The server checks it in any case.
document.addEventListener("change", (event) => {
  const input = event.target.closest("input[type=file][data-max-size]");
  if (!input) return;
  const max = Number(input.dataset.maxSize);
  const big = Array.from(input.files || []).find((f) => f.size > max);
  input.setCustomValidity(big ? `${big.name} is larger than the limit of ${input.dataset.maxSizeText}.` : "");
  if (big) input.reportValidity();
});

// A POST form, once sent, disables its submit buttons and says it is busy
// until the next page comes, so that a double click sends it once. The
// form is marked at once, and a second submit of a marked form is
// stopped before anything else sees it; the buttons are disabled a turn
// later, because the button that was pressed must still count in the
// form's data (a disabled one would not), and because a script that
// sends the form itself (preventDefault) keeps its form as it was. A page
// the browser restores from its back-forward cache gets its buttons back;
// so does a form whose answer is a download (data-download), which leaves
// the page where it was, after a few seconds. The server guards what must
// not happen twice in any case (docs/console.md#small-behaviours).
window.addEventListener("submit", (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && "sending" in form.dataset) {
    event.preventDefault();
    event.stopImmediatePropagation();
  }
}, true);

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || form.method !== "post" || event.defaultPrevented) return;
  if (form.target && form.target !== "_self") return; // the page stays: it may send again
  form.dataset.sending = "";
  setTimeout(() => {
    if (event.defaultPrevented) {
      delete form.dataset.sending;
      return;
    }
    for (const b of Array.from(form.elements)) {
      if ((b instanceof HTMLButtonElement || b instanceof HTMLInputElement) && b.type === "submit" && !b.disabled) {
        b.disabled = true;
        b.dataset.busy = "";
      }
    }
    form.setAttribute("aria-busy", "true");
    if ("download" in form.dataset) setTimeout(() => release(form), 3000);
  }, 0);
});

function release(form) {
  delete form.dataset.sending;
  form.removeAttribute("aria-busy");
  for (const b of Array.from(form.elements).filter((el) => "busy" in el.dataset)) {
    b.disabled = false;
    delete b.dataset.busy;
  }
}

window.addEventListener("pageshow", (event) => {
  if (!event.persisted) return;
  for (const form of document.querySelectorAll("form[data-sending]")) release(form);
});
