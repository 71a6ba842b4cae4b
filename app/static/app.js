// Attest's SPARQL editor: YASGUI (vendored from npm) pointed at this server's /sparql, with the ontology's prefixes.
(function () {
  "use strict";

  const config = JSON.parse(document.getElementById("attest-config").textContent);
  const endpoint = new URL(config.endpoint, window.location.href).href;
  const prefixLines = Object.entries(config.prefixes)
    .map(([prefix, iri]) => `PREFIX ${prefix}: <${iri}>`)
    .join("\n");

  function showError(message) {
    const box = document.getElementById("ui-error");
    box.textContent = message;
    box.hidden = false;
  }

  if (typeof window.Yasgui !== "function") {
    showError("The SPARQL editor's files are missing (app/static/vendor). Run `make install` to fetch YASGUI from npm.");
    return;
  }

  // Run nothing against third-party services: no LOV class/property lookups, no prefix.cc, one endpoint.
  const yasgui = new window.Yasgui(document.getElementById("yasgui"), {
    requestConfig: { endpoint: endpoint, method: "POST" },
    copyEndpointOnNewTab: true,
    endpointCatalogueOptions: { getData: () => [{ endpoint: endpoint }] },
    persistenceId: "attest-yasgui",
    yasqe: {
      value: `${prefixLines}\n\n${config.exampleQuery}\n`,
      autocompleters: ["prefixes", "variables"],
      prefixCcApi: undefined,
      editorHeight: "320px",
    },
    yasr: {
      prefixes: config.prefixes,
      defaultPlugin: "table",
      pluginOrder: ["table", "response"],
    },
  });
  window.attestYasgui = yasgui; // handle for the browser test and the console

  // A tab restored from localStorage may point at another server's endpoint: point it here.
  Object.values(yasgui._tabs).forEach((tab) => {
    if (tab.getEndpoint && tab.getEndpoint() !== endpoint) tab.setEndpoint(endpoint);
  });

  function openInTab(query) {
    const tab = yasgui.addTab(true, { name: query.name, requestConfig: { endpoint: endpoint } });
    tab.show();
    tab.setQuery(query.query);
  }

  function describeParameters(query) {
    if (!query.parameters.length) return "no parameters";
    return query.parameters
      .map((p) => `?${p.name}: ${p.type}${p.required ? "" : " (optional)"}`)
      .join(", ");
  }

  fetch("/queries", { headers: { Accept: "application/json" } })
    .then((response) => {
      if (!response.ok) throw new Error(`GET /queries answered ${response.status}`);
      return response.json();
    })
    .then((body) => {
      const list = document.getElementById("named-queries");
      list.replaceChildren();
      body.queries.forEach((query) => {
        const item = document.createElement("li");
        const button = document.createElement("button");
        button.type = "button";
        button.className = "named-query";
        button.textContent = query.name;
        button.title = query.description;
        button.addEventListener("click", () => openInTab(query));
        const detail = document.createElement("div");
        detail.className = "muted";
        detail.textContent = describeParameters(query);
        const link = document.createElement("a");
        link.href = query.url;
        link.textContent = "GET " + query.url;
        link.className = "route";
        item.append(button, detail, link);
        list.append(item);
      });
      if (!body.queries.length) list.innerHTML = '<li class="muted">none in queries/</li>';
    })
    .catch((error) => {
      document.getElementById("named-queries").innerHTML = "";
      showError(`Named queries unavailable: ${error.message}`);
    });
})();
