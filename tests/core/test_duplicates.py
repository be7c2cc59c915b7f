"""Near-duplicates a maintainer would merge, and template families reported once (SPEC §5), on
labelled fixtures: a library holding three template families, duplicates written differently
and related-but-distinct pairs; and a second library (the matching evaluation set) with two
template families and near-synonyms but no duplicate at all."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from skill_studio.core.health import checks, duplicates
from skill_studio.core.health.similarity import Pair, SimilarityIndex
from skill_studio.core.library.importer import import_paths
from skill_studio.core.store import Store

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _library(tmp_path_factory, folder: str) -> Store:
    store = Store(tmp_path_factory.mktemp(folder) / "s.db")
    report = import_paths(store, [FIXTURES / folder / "skills"])
    assert not [e for e in report.entries if e.status == "skipped"]
    return store


@pytest.fixture(scope="module")
def labelled(tmp_path_factory):
    store = _library(tmp_path_factory, "near_duplicates")
    yield store, yaml.safe_load((FIXTURES / "near_duplicates" / "labels.yaml").read_text(encoding="utf-8"))
    store.close()


def _verdicts(store: Store) -> duplicates.Verdicts:
    index = SimilarityIndex(store)
    index.refresh()
    return duplicates.judge(store, index.near_duplicates(duplicates.CANDIDATE_FLOOR))


def test_duplicates_written_differently_are_found_and_template_siblings_are_not(labelled):
    store, labels = labelled
    found = {tuple(sorted((d.a, d.b))) for d in _verdicts(store).duplicates}
    truth = {tuple(sorted(p)) for p in labels["duplicates"]}
    hits = found & truth
    precision, recall = len(hits) / len(found), len(hits) / len(truth)
    assert precision == 1.0, f"flagged but not duplicates: {sorted(found - truth)}"
    assert recall >= 0.9, f"missed: {sorted(truth - found)}"
    distinct = {tuple(sorted(p)) for p in labels["distinct"]}
    assert not found & distinct
    # The hard cases: one member in a template family, another written by someone else.
    assert ("google-maps-automation", "googlemaps-automation") in found
    assert ("quickbooks-automation", "quickbooks-online-bookkeeping") in found
    assert ("docker-hub-automation", "dockerhub-registry-tools") in found


def test_each_template_family_is_reported_once(labelled):
    store, labels = labelled
    families = _verdicts(store).families
    assert sorted(sorted(f.members) for f in families) == sorted(sorted(f["members"]) for f in labels["families"])
    accounting = next(f for f in families if "xero-automation" in f.members)
    assert accounting.reason.startswith("6 skills share one template")
    assert {"xero", "quickbooks", "freshbooks"} <= set(accounting.differ)


def test_a_library_of_families_and_near_synonyms_has_no_duplicates(tmp_path_factory):
    store = _library(tmp_path_factory, "match_eval")
    verdicts = _verdicts(store)
    assert verdicts.duplicates == []
    families = sorted(sorted(f.members) for f in verdicts.families)
    assert [len(f) for f in families] == [6, 6]
    assert "slack-automation" in families[1] + families[0] and "xero-automation" in families[1] + families[0]
    store.close()


def test_the_health_plan_reports_duplicates_and_families(labelled):
    store, _ = labelled
    result = checks.run(store, keep=False)
    rules = [a.rule for a in result.actions]
    assert rules.count("template-family") == 3
    family = next(a for a in result.actions if a.rule == "template-family")
    assert not family.applies and len(family.members) == 6 and "share one template" in family.reason
    pairs = {tuple(sorted((p.a, p.b))) for p in result.pairs}
    assert ("zoho-books-automation", "zoho-invoice-automation") not in pairs
    assert ("mermaid-diagram-generator", "mermaid-diagrams") in pairs and all(p.reason for p in result.pairs)
    merge = [a for a in result.actions if a.rule == "near-duplicate"]
    assert len(merge) == len(result.pairs) and all("suggested: merge into" in a.reason for a in merge)


def test_names_written_differently_are_one_name():
    assert duplicates.name_words("Docker_Hub-Automation-v2") == ["docker", "hub", "automation"]
    assert duplicates.name_words("googleMaps") == ["google", "maps"]
    pairs = [Pair("docx", "docx-2", 0.45), Pair("google-maps-automation", "google_maps-automation", 0.42)]
    texts = {n: n for p in pairs for n in (p.a, p.b)}
    found = duplicates.classify(pairs, texts, list(texts)).duplicates
    assert [(d.a, d.reason) for d in found] == [("docx", duplicates.SAME_NAME),
                                                ("google-maps-automation", duplicates.SAME_NAME)]


def test_skills_about_different_things_are_not_duplicates_however_similar():
    texts = {"mysql-migrations": "mysql migrations: lock tables, gh-ost, instant algorithm",
             "postgres-migrations": "postgres migrations: transactional ddl, concurrently"}
    verdicts = duplicates.classify([Pair("mysql-migrations", "postgres-migrations", 0.95)], texts, list(texts))
    assert verdicts.duplicates == [] and verdicts.families == []      # two are a pair, not a family


def test_a_passing_mention_does_not_make_two_products_one(tmp_path_factory):
    """Without the rest of its family, Zoho Books beside Zoho Invoice (which says "Zoho Books"
    once, in passing) is still no merge suggestion; the same product named twice still is."""
    import shutil

    root = tmp_path_factory.mktemp("subset")
    for name in ("zoho-books-automation", "zoho-invoice-automation", "google-maps-automation",
                 "googlemaps-automation", "docx", "word-docx", "csv-cleaner", "tidy-csv-data",
                 "kubernetes-pod-debugging", "terraform-plan-review"):
        if (FIXTURES / "near_duplicates" / "skills" / name).is_dir():
            shutil.copytree(FIXTURES / "near_duplicates" / "skills" / name, root / "skills" / name)
    store = Store(root / "s.db")
    import_paths(store, [root / "skills"])
    found = {tuple(sorted((d.a, d.b))) for d in _verdicts(store).duplicates}
    assert ("zoho-books-automation", "zoho-invoice-automation") not in found
    assert ("google-maps-automation", "googlemaps-automation") in found and ("docx", "word-docx") in found
    store.close()


def _write(root: Path, folder: str, name: str, description: str, body: str) -> None:
    (root / folder).mkdir(parents=True)
    (root / folder / "SKILL.md").write_text(f'---\nname: {name}\ndescription: "{description}"\n---\n\n{body}',
                                            encoding="utf-8")


def test_a_library_most_of_which_is_one_template(tmp_path):
    """Sixty products from one template (as the big public collections hold hundreds): one family,
    no merge suggestion among them; the same product imported twice under two spellings is still
    flagged, though the library's common direction (the template) taken out leaves the pair
    little similarity."""
    products = ["Google Maps", "Docker Hub", "Zoho Books", "Zoho Invoice", "Google Classroom", "Xero", "Slack",
                "Notion", "Trello", "Asana", "Jira", "Linear", "Stripe", "Shopify", "Twilio", "Zendesk",
                "Hubspot", "Salesforce", "Airtable", "Dropbox", "Box", "Figma", "Miro", "Calendly", "Zoom",
                "Webex", "Intercom", "Mailchimp", "Sendgrid", "Postmark", "Pipedrive", "Freshdesk", "Gitlab",
                "Bitbucket", "Sentry", "Datadog", "Pagerduty", "Opsgenie", "Contentful", "Webflow", "Wix",
                "Squarespace", "Quickbooks", "Freshbooks", "Gusto", "Rippling", "Workday", "Greenhouse", "Lever",
                "Typeform", "Jotform", "Docusign", "Pandadoc", "Clickup", "Monday", "Basecamp", "Todoist",
                "Evernote", "Coda", "Smartsheet"]
    root = tmp_path / "skills"
    for product in products:
        slug = product.lower().replace(" ", "_")
        name = product.lower().replace(" ", "-") + "-automation"
        body = (f"# {product} Automation via Rube MCP\n\nAutomate {product} operations through Composio's {product} "
                f"toolkit via Rube MCP.\n\n## Prerequisites\n\n- Rube MCP connected\n- Active {product} connection via "
                f"RUBE_MANAGE_CONNECTIONS with toolkit `{slug}`\n- Always call RUBE_SEARCH_TOOLS first\n\n"
                f"## Core workflows\n\n1. List {product} records with `{slug.upper()}_LIST`.\n2. Create a {product} "
                f"record with `{slug.upper()}_CREATE`.\n3. Check the {product} response for errors.\n")
        _write(root, name, name, f"Automate {product} tasks via Rube MCP (Composio). Always search tools first "
                                 "for current schemas.", body)
    # The same product again, from another collection that spells it as one word.
    _write(root, "googlemaps-automation", "googlemaps-automation",
           "Automate Google_Maps tasks via Rube MCP (Composio): geocode addresses, directions and places.",
           "# Google_Maps Automation\n\nUse the google_maps toolkit: geocode an address, get directions between "
           "two places, search places nearby.\n\n1. Geocode with `GOOGLE_MAPS_GEOCODE`.\n2. Directions with "
           "`GOOGLE_MAPS_DIRECTIONS`.\n3. Places with `GOOGLE_MAPS_PLACES_SEARCH`.\n")
    # Two versions of one skill from two collections.
    for name in ("docx", "docx-2"):
        _write(root, name, name, "Create and edit Word documents (.docx) with python-docx: styles, tables, "
                                 "tracked changes. Use when the user hands over a .docx file.",
               f"# Word documents\n\n1. Open the document with python-docx.\n2. Edit paragraphs and tables.\n"
               f"3. Save a copy{' and check it opens in Word' if name == 'docx-2' else ''}.\n")
    store = Store(tmp_path / "s.db")
    assert not [e for e in import_paths(store, [root]).entries if e.status != "imported"]
    result = checks.run(store, keep=False)
    (family,) = result.families
    assert len(family.members) >= 55 and "googlemaps-automation" not in family.members
    assert "share one template" in family.reason
    found = {tuple(sorted((p.a, p.b))) for p in result.pairs}
    assert ("google-maps-automation", "googlemaps-automation") in found and ("docx", "docx-2") in found
    assert not [p for p in found if set(p) <= set(family.members)]
    store.close()


def test_an_llm_import_is_merged_into_a_copy_but_never_into_a_templates_sibling(tmp_path):
    import shutil

    from skill_studio.core.model import Origin

    skills, products = FIXTURES / "near_duplicates" / "skills", FIXTURES / "match_eval" / "skills"
    for folder, name in ((products, "quickbooks-automation"), (skills, "mermaid-diagrams"),
                         (skills, "k8s-pod-debugging")):
        shutil.copytree(folder / name, tmp_path / "library" / name)
    for folder, name in ((products, "xero-automation"), (skills, "mermaid-diagram-generator")):
        shutil.copytree(folder / name, tmp_path / "extracted" / name)
    store = Store(tmp_path / "s.db")
    import_paths(store, [tmp_path / "library"], origin=Origin.LLM)   # unreviewed: merged into at once
    index = SimilarityIndex(store)
    index.refresh()
    report = import_paths(store, [tmp_path / "extracted"], origin=Origin.LLM)
    status = {e.source.split("/")[-2]: (e.status, e.reason) for e in report.entries}
    merged = status["mermaid-diagram-generator"]
    assert merged[0] == "merged" and "mermaid-diagrams" in merged[1]
    assert status["xero-automation"] == ("imported", "")        # as similar as a copy, but another product
    assert SimilarityIndex(store).pair_similarity("quickbooks-automation", "xero-automation") >= 0.78
    store.close()


def test_a_numbered_series_is_not_one_name():
    assert duplicates.same_named(["docx", "docx-2", "step-1", "step-2", "report-000041", "report-000042"]) == [
        ("docx", "docx-2")]
