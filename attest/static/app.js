// Attest's SPARQL editor: YASGUI (vendored from npm) pointed at this server's /sparql, with the ontology's prefixes.
(function () {
  "use strict";

  const config = JSON.parse(document.getElementById("attest-config").textContent);
  const endpoint = new URL(config.endpoint, window.location.href).href;
  // the server refuses token-less writes sent as forms without it: an HTML form on another site cannot set it
  const SCRIPT_HEADERS = { "X-Requested-With": "attest" };
  const prefixLines = Object.entries(config.prefixes)
    .map(([prefix, iri]) => `PREFIX ${prefix}: <${iri}>`)
    .join("\n");

  function showError(message) {
    const box = document.getElementById("ui-error");
    box.textContent = message;
    box.hidden = false;
  }

  if (typeof window.Yasgui !== "function") {
    showError("The SPARQL editor's files are missing (attest/static/vendor). Run `make install` to fetch YASGUI from npm.");
    return;
  }

  // Class and property completion from this server's ontology graph instead of the LOV web service:
  // the built-in completers' token handling (prefixed names in, full IRIs matched) with our own term list.
  const TERMS = {
    class: "SELECT DISTINCT ?term WHERE { { ?term a owl:Class } UNION { ?term a rdfs:Class } FILTER(isIRI(?term)) }",
    property: "SELECT DISTINCT ?term WHERE { VALUES ?kind { owl:ObjectProperty owl:DatatypeProperty " +
      "owl:AnnotationProperty rdf:Property } ?term a ?kind FILTER(isIRI(?term)) }",
  };
  const COMMON_PROPERTIES = ["rdf:type", "rdfs:label", "rdfs:comment", "rdfs:subClassOf", "rdfs:subPropertyOf",
    "rdfs:domain", "rdfs:range", "skos:altLabel", "skos:prefLabel", "dct:title", "prov:wasDerivedFrom",
    "att:inDocument", "att:text", "att:confidence", "att:derives", "att:rule", "att:depth", "att:premise"];

  function expand(name) {
    const [prefix, local] = name.split(":");
    return config.prefixes[prefix] + local;
  }

  function ontologyTerms(kind) {
    const body = new URLSearchParams({ query: `${prefixLines}\n${TERMS[kind]}` });
    return fetch(endpoint, { method: "POST", body, headers: { Accept: "application/sparql-results+json", ...SCRIPT_HEADERS } })
      .then((response) => (response.ok ? response.json() : { results: { bindings: [] } }))
      .then((json) => json.results.bindings.map((row) => row.term.value))
      .then((terms) => (kind === "property" ? terms.concat(COMMON_PROPERTIES.map(expand)) : terms))
      .catch(() => []);
  }

  const Yasqe = window.Yasgui.Yasqe;
  ["class", "property"].forEach((kind) => {
    Yasqe.forkAutocompleter(kind, { name: `attest-${kind}`, bulk: true, persistenceId: null,
                                    get: () => ontologyTerms(kind) }, false);
  });

  // Run nothing against third-party services: no LOV class/property lookups, no prefix.cc, one endpoint.
  const yasgui = new window.Yasgui(document.getElementById("yasgui"), {
    // updates go as forms: the header tells the server a script sent them (docs/security.md)
    requestConfig: { endpoint: endpoint, method: "POST", headers: SCRIPT_HEADERS },
    copyEndpointOnNewTab: true,
    endpointCatalogueOptions: { getData: () => [{ endpoint: endpoint }] },
    persistenceId: "attest-yasgui",
    yasqe: {
      value: `${prefixLines}\n\n${config.exampleQuery}\n`,
      autocompleters: ["prefixes", "variables", "attest-class", "attest-property"],
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

  // /ui/sparql?query=... (the Ask page's "show the SPARQL") is YASGUI's own shared-link form (populateFromUrl, on by
  // default): it opens the query in a tab of its own and runs it.

  // entity IRIs in the results open the entity's page (YASR draws them as links to the IRI itself)
  function linkEntities(root) {
    root.querySelectorAll(`a[href^="${config.entityBase}"]`).forEach((link) => {
      const id = link.getAttribute("href").slice(config.entityBase.length);
      if (!id || id.includes("/")) return;
      link.href = "/ui/entity/" + encodeURIComponent(id);
      link.removeAttribute("target");
      link.title = "Open the entity's page";
    });
  }
  new MutationObserver(() => linkEntities(document.getElementById("yasgui")))
    .observe(document.getElementById("yasgui"), { childList: true, subtree: true });

  const namedTabs = {}; // named query -> id of the tab that shows it

  function tabFor(query) {
    const known = namedTabs[query.name] && yasgui.getTab(namedTabs[query.name]);
    const tab = known || yasgui.addTab(true, { name: query.name, requestConfig: { endpoint: endpoint, headers: SCRIPT_HEADERS } });
    namedTabs[query.name] = tab.getId();
    yasgui.selectTabId(tab.getId());
    tab.show();
    if (tab.getQuery() !== query.query) tab.setQuery(query.query);
    return tab;
  }

  // Runs GET /queries/{name}?... (parameters bound on the server, never spliced) and shows the answer in the tab.
  function runNamed(query, form) {
    const params = new URLSearchParams();
    form.querySelectorAll("input[name]").forEach((input) => {
      if (input.value.trim() !== "") params.append(input.name, input.value.trim());
    });
    const graph = query.form === "CONSTRUCT" || query.form === "DESCRIBE";
    const tab = tabFor(query);
    const started = performance.now();
    return fetch(`${query.url}?${params}`, {
      headers: { Accept: graph ? "text/turtle" : "application/sparql-results+json" },
    })
      .then(async (response) => {
        const content = await response.text();
        const duration = Math.round(performance.now() - started);
        if (response.ok) {
          tab.getYasr().setResponse(
            { content, headers: response.headers, status: response.status, ok: true, statusText: response.statusText },
            duration,
          );
          return;
        }
        let message = content; // Attest errors are JSON {"error", "message", ...}
        try {
          message = JSON.parse(content).message || content;
        } catch (_) {
          /* not JSON: show the body as it is */
        }
        tab.getYasr().setResponse(
          { error: { text: message, status: response.status, statusText: response.statusText } },
          duration,
        );
      })
      .catch((error) => showError(`${query.name}: ${error.message}`));
  }

  function parameterField(param) {
    const label = document.createElement("label");
    label.className = "param";
    const name = document.createElement("span");
    name.textContent = param.name;
    const input = document.createElement("input");
    input.name = param.name;
    input.required = param.required;
    input.placeholder = param.type + (param.default !== null ? ` = ${param.default}` : param.required ? "" : " (optional)");
    input.title = param.description;
    label.append(name, input);
    return label;
  }

  function brokenQueryItem(query) {
    const item = document.createElement("li");
    item.className = "broken";
    item.innerHTML = '<span class="named-query"></span><div class="muted description"></div>';
    item.firstChild.textContent = query.name;
    item.lastChild.textContent = query.error;
    return item;
  }

  function namedQueryItem(query) {
    if (query.error) return brokenQueryItem(query);
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "named-query";
    button.textContent = query.name;
    const description = document.createElement("div");
    description.className = "muted description";
    description.textContent = query.description;
    const form = document.createElement("form");
    form.className = "named-form";
    form.dataset.query = query.name;
    form.hidden = true;
    query.parameters.forEach((param) => form.append(parameterField(param)));
    const run = document.createElement("button");
    run.type = "submit";
    run.className = "run";
    run.textContent = "Run";
    const edit = document.createElement("button");
    edit.type = "button";
    edit.className = "edit";
    edit.textContent = "Edit SPARQL";
    edit.title = "Open the query text in the editor";
    edit.addEventListener("click", () => tabFor(query));
    const route = document.createElement("a");
    route.href = query.url;
    route.className = "route";
    route.textContent = "GET " + query.url;
    form.append(run, edit, route);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      runNamed(query, form);
    });
    button.addEventListener("click", () => {
      form.hidden = !form.hidden;
      if (!form.hidden) tabFor(query);
    });
    item.append(button, description, form);
    return item;
  }

  fetch("/queries", { headers: { Accept: "application/json" } })
    .then((response) => {
      if (!response.ok) throw new Error(`GET /queries answered ${response.status}`);
      return response.json();
    })
    .then((body) => {
      const list = document.getElementById("named-queries");
      list.replaceChildren(...body.queries.map(namedQueryItem));
      if (!body.queries.length) list.innerHTML = '<li class="muted">none in queries/</li>';
    })
    .catch((error) => {
      document.getElementById("named-queries").replaceChildren();
      showError(`Named queries unavailable: ${error.message}`);
    });
})();
