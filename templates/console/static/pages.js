// The page editor's template settings: without JavaScript every template's
// settings show, and only the chosen template's are saved; with it only the
// chosen template's show, and only theirs are required
// (docs/console.md#pages).
"use strict";

function showTemplateConfig(select) {
  const form = select.form;
  for (const set of form.querySelectorAll("fieldset[data-template-config]")) {
    const chosen = set.dataset.templateConfig === select.value;
    set.hidden = !chosen;
    // A hidden set must neither block the form nor be sent.
    set.disabled = !chosen;
    for (const input of set.querySelectorAll("input[data-required]")) {
      input.required = chosen;
    }
  }
}

for (const select of document.querySelectorAll("select[data-template-select]")) {
  showTemplateConfig(select);
  select.addEventListener("change", () => showTemplateConfig(select));
}
