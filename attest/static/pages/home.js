// Home: links to the pages, and a search that lists entities by label (the entity-by-label named query).
(function () {
  "use strict";
  const { el, getJson, showError, entityHref, localName } = window.Attest;

  document.getElementById("find").addEventListener("submit", async (event) => {
    event.preventDefault();
    const label = document.getElementById("find-label").value.trim();
    const list = document.getElementById("found");
    showError("");
    try {
      const body = await getJson(`/queries/entity-by-label?limit=20&label=${encodeURIComponent(label)}`,
                                 { headers: { Accept: "application/sparql-results+json" } });
      const rows = body.results.bindings;
      list.replaceChildren(...rows.map((row) => el("li", {},
        el("a", { href: entityHref(row.entity.value) }, row.name ? row.name.value : localName(row.entity.value)),
        row.types ? el("span", { class: "muted" }, ` · ${row.types.value}`) : null)));
      if (!rows.length) list.replaceChildren(el("li", { class: "muted" }, `nothing is labelled like “${label}”`));
    } catch (error) {
      showError(error.message);
    }
  });
})();
