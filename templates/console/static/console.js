// Behaviour shared by every console page, for what a form cannot do alone:
// copy buttons (of a field or of a <pre>), confirmation of destructive
// actions, and select-all boxes.
// Pages work without it; it only makes them quicker to use.
"use strict";

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
