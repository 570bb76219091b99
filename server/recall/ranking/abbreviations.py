"""Abbreviations and what they stand for, matched as one another (data, written for this project).

People and models shorten words their notes spell out, and the other way round: "k8s" for
Kubernetes, "DB" for database, "PR" for pull request.  A query word (or run of words) on
either side of a line below also finds the other side in notes.  Kept short and plain, so a
person can read why a note matched; a person's own synonyms belong in a note's `aliases`.
"""

from __future__ import annotations

# abbreviation: what it stands for (several, separated by ';')
ABBREVIATIONS = """
a11y: accessibility
ai: artificial intelligence
api: application programming interface
auth: authentication; authorization
aws: amazon web services
cd: continuous delivery; continuous deployment
ci: continuous integration
config: configuration
db: database
deps: dependencies
dev: development
docs: documentation
e2e: end to end
env: environment
gcp: google cloud
gh: github
i18n: internationalization; internationalisation
iac: infrastructure as code
infra: infrastructure
js: javascript
k8s: kubernetes
l10n: localization; localisation
llm: large language model
mfa: multi factor authentication
2fa: two factor authentication
ml: machine learning
mr: merge request
ota: over the air
perf: performance
pg: postgres; postgresql
pr: pull request
prod: production
qa: quality assurance
rbac: role based access control
repo: repository
sla: service level agreement
slo: service level objective
sso: single sign on
ts: typescript
ui: user interface
ux: user experience
vm: virtual machine
"""


def abbreviation_pairs() -> list[tuple[str, str]]:
    """(abbreviation, what it stands for) pairs, as written above."""
    pairs = []
    for line in ABBREVIATIONS.strip().splitlines():
        short, _, long = line.partition(":")
        pairs += [(short.strip(), meaning.strip()) for meaning in long.split(";")]
    return pairs
