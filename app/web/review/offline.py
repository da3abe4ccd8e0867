"""Review anywhere: the web app manifest, the service worker, the cards to review offline and
the batch that sends offline grades back in order."""

import functools
import gzip
import hashlib
import hmac
import json
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app import PROJECT_ROOT
from app.drills.present import present_all
from app.errors import ConflictError, DomainError, NotFoundError
from app.plan import service as plan_service
from app.srs import offline, submit
from app.srs import settings as srs_settings
from app.web.deps import (
    CatalogDep,
    FuzzDep,
    NowDep,
    RendererDep,
    SessionDep,
    TemplatesDep,
    UserDep,
    WriteSessionDep,
)
from app.web.errors import error_detail
from app.web.review import check_topics
from app.web.review.schemas import GradeIn, GradeOut
from app.web.templating import request_context

# Served without signing in: a browser fetches both before it knows who you are.
public_router = APIRouter()
router = APIRouter()

STATIC = PROJECT_ROOT / "static"
SERVICE_WORKER = STATIC / "js" / "sw.js"
# Light and dark: the colour of the page's header in each theme (static/css/app.css).
THEME_LIGHT = "#ffffff"
THEME_DARK = "#1a1d23"
MAX_BATCH = 100


@public_router.get("/manifest.webmanifest", include_in_schema=False)
def manifest() -> JSONResponse:
    """What a browser needs to install Ringside as an app."""
    icons = [
        {"src": f"/static/icons/icon-{size}.png", "sizes": f"{size}x{size}", "type": "image/png"}
        for size in (192, 512)
    ] + [
        {
            "src": f"/static/icons/maskable-{size}.png",
            "sizes": f"{size}x{size}",
            "type": "image/png",
            "purpose": "maskable",
        }
        for size in (192, 512)
    ]
    body = {
        "id": "/",
        "name": "Ringside: distributed-training interview prep",
        "short_name": "Ringside",
        "description": "Worked answers, timed mocks and spaced repetition that works offline.",
        "start_url": "/review",
        "scope": "/",
        "display": "standalone",
        "background_color": THEME_LIGHT,
        "theme_color": THEME_LIGHT,
        "icons": [*icons, {"src": "/static/favicon.svg", "sizes": "any", "type": "image/svg+xml"}],
    }
    return JSONResponse(body, media_type="application/manifest+json")


# Not kept for offline use: the API reference's Swagger UI (1.7 MB, two thirds of the rest),
# which a phone would otherwise download with every install and upgrade of the worker.
ONLINE_ONLY = ("vendor", "swagger-ui")


@functools.cache
def static_assets(root: Path = STATIC) -> tuple[list[str], str]:
    """Every style, script, font and icon the pages use, which the service worker keeps, and
    a digest of their contents: a release that changes one without changing the version
    still gets a new worker and fresh caches."""
    files = sorted(
        path
        for path in root.rglob("*")
        if path.is_file()
        and path.suffix not in {"", ".map", ".md"}
        and path.name != "sw.js"
        and path.relative_to(root).parts[:2] != ONLINE_ONLY
    )
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return ["/static/" + path.relative_to(root).as_posix() for path in files], digest.hexdigest()


@public_router.get("/sw.js", include_in_schema=False)
def service_worker(request: Request) -> Response:
    """The service worker, from the root so that its scope is every page; its caches are
    named after the version (and the static files' digest), so an upgrade installs a new
    worker that deletes the old caches."""
    assets, digest = static_assets()
    source = SERVICE_WORKER.read_text(encoding="utf-8")
    body = source.replace("__VERSION__", f"{request.app.version}-{digest[:10]}").replace(
        "__ASSETS__", json.dumps(assets)
    )
    # Not cached by the browser: every answer outside /static/ carries no-store (app.web.security).
    headers = {"Service-Worker-Allowed": "/"}
    return Response(body, media_type="text/javascript", headers=headers)


@router.get("/offline", response_class=HTMLResponse, include_in_schema=False)
def offline_page(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """Shown for a page that was never opened online when the network is gone."""
    return templates.TemplateResponse(request, "offline.html", {})


@router.get("/review/shell", response_class=HTMLResponse, include_in_schema=False)
def review_shell(request: Request, catalog: CatalogDep, templates: TemplatesDep) -> HTMLResponse:
    """The review page without a card: offline, review.js fills it from the stored cards."""
    context = {"shell": True, "topics": [], "all_topics": catalog.topics}
    return templates.TemplateResponse(request, "review/show.html", context)


def owner_of(request: Request, user_id: int) -> str:
    """An opaque name for the signed-in account, stored with each offline grade: a grade
    given while someone else was signed in on this browser is not applied to this account."""
    key: bytes = request.app.state.auth_policy.key
    return hmac.new(key, f"offline-owner:{user_id}".encode(), hashlib.sha256).hexdigest()[:24]


class OfflineCardOut(BaseModel):
    card_id: str
    topic: str
    topic_title: str
    kind: str
    html: str
    in_queue: bool
    state: dict[str, Any] | None
    fuzz_draws: list[float]
    available_at: str | None = Field(
        default=None,
        description="For a card not in today's queue, when it joins it (a learning step's "
        "end, or the start of the day a review falls due).",
    )


class OfflineOut(BaseModel):
    generated_at: str
    version: str
    owner: str
    csrf_token: str
    scheduler: dict[str, Any]
    day_ends: list[str]
    done_today: int
    due_count: int
    new_count: int
    cards: list[OfflineCardOut]
    queue: list[str] = Field(
        default_factory=list,
        description="Today's queue in the order the review page shows it (card ids); the "
        "other cards follow in `cards` in the order they come due.",
    )
    topics: list[str] = Field(default_factory=list, description="The topics asked for, if any.")


@router.get("/api/review/offline", tags=["review"], response_model=OfflineOut)
def offline_api(
    request: Request,
    catalog: CatalogDep,
    session: SessionDep,
    templates: TemplatesDep,
    renderer: RendererDep,
    user_id: UserDep,
    now: NowDep,
    days: Annotated[int, Query(ge=1, le=7, description="Cards due before this day ends.")] = 3,
    limit: Annotated[int, Query(ge=1, le=500)] = 200,
    topic: Annotated[list[str], Query(description="Only cards from these topic slugs.")] = [],  # noqa: B006
) -> Response:
    """Today's queue, in order, and the cards due in the next days, with what the review page
    needs to review them on the device, online or not: each card's HTML, its FSRS state and
    the scheduler's parameters. The page grades on the device first and sends the grades
    through `POST /api/review/sync`."""
    topics = check_topics(catalog, topic)
    settings = srs_settings.load(session, user_id)
    cache = request.app.state.plan_cache
    planned = plan_service.today(session, user_id, catalog, now, cache, settings)
    snapshot = offline.build(
        session.connection(),
        user_id,
        catalog,
        settings,
        now,
        days=days,
        limit=limit,
        planned=planned,
        topics=topics,
    )
    card_template = templates.get_template("cards/_card.html")
    per_request = request_context(request)  # outside TemplateResponse: added by hand
    cards = []
    for item in snapshot.cards:
        view = catalog.card(item.card_id)
        assert view is not None
        html = card_template.render(
            request=request,
            **per_request,
            card=view,
            inline=False,
            open_answer=False,
            drills=present_all(renderer, [view]),
        )
        cards.append(
            OfflineCardOut(
                card_id=view.id,
                topic=view.topic_slug,
                topic_title=view.topic_title,
                kind=view.kind,
                html=html,
                in_queue=item.in_queue,
                state=item.state,
                fuzz_draws=item.fuzz_draws,
                available_at=item.available_at.isoformat() if item.available_at else None,
            )
        )
    fuzz = bool(request.app.state.settings.srs_fuzz)
    out = OfflineOut(
        generated_at=now.isoformat(),
        version=request.app.version,
        owner=owner_of(request, user_id),
        csrf_token=per_request["csrf_token"],
        scheduler=offline.scheduler_config(
            settings.desired_retention, fuzz, settings.fsrs_parameters
        ),
        day_ends=[end.isoformat() for end in snapshot.day_ends],
        done_today=snapshot.done_today,
        due_count=snapshot.due_count,
        new_count=snapshot.new_count,
        cards=cards,
        queue=[item.card_id for item in snapshot.cards if item.in_queue],
        topics=sorted(topics or []),
    )
    # Some 6 kB of HTML a card, fetched each time the review page is open online: on a phone
    # network the compressed answer is about a tenth of it.
    body = out.model_dump_json().encode()
    headers = {"Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        body = gzip.compress(body, compresslevel=6)
        headers["Content-Encoding"] = "gzip"
    return Response(body, media_type="application/json", headers=headers)


class SyncIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    grades: list[dict[str, Any]] = Field(
        max_length=MAX_BATCH,
        description="Grades in the order they were given, each a grade's body plus `card_id`.",
    )


class SyncResult(BaseModel):
    idempotency_key: str | None
    card_id: str | None
    status: int
    detail: Any = None
    grade: GradeOut | None = None


class SyncOut(BaseModel):
    results: list[SyncResult]


class _Item(GradeIn):
    card_id: str = Field(min_length=1, max_length=80)
    owner: str | None = Field(
        default=None, max_length=64, description="`owner` from GET /api/review/offline."
    )


@router.post("/api/review/sync", tags=["review"])
def sync_api(
    request: Request,
    body: SyncIn,
    catalog: CatalogDep,
    session: WriteSessionDep,
    user_id: UserDep,
    now: NowDep,
    fuzz: FuzzDep,
) -> SyncOut:
    """Grades given offline, applied in the order sent, each as `POST /api/review/{card_id}`
    would: one result per grade with that endpoint's status (200, 404, 409 or 422) and body.
    Resending a batch whose answer was lost records nothing twice (idempotency keys). A grade
    whose `owner` is not the signed-in account's is refused with 409. The batch is one write
    transaction; a refused grade changes nothing (app.srs.submit grades in a savepoint)."""
    results = []
    owner = owner_of(request, user_id)
    for raw in body.grades:
        key = raw.get("idempotency_key")
        card_id = raw.get("card_id")
        result = SyncResult(
            idempotency_key=key if isinstance(key, str) else None,
            card_id=card_id if isinstance(card_id, str) else None,
            status=200,
        )
        try:
            item = _Item.model_validate(raw)
            if item.owner is not None and item.owner != owner:
                message = "given while another account was signed in on this browser: not applied"
                raise ConflictError(message)
            if catalog.card(item.card_id) is None:
                raise NotFoundError(f"No card '{item.card_id}'.")
            graded = submit.submit(session, user_id, item.card_id, item.to_grade(), now, fuzz=fuzz)
            result.grade = GradeOut.of(graded)
        except ValidationError as error:
            result.status = 422
            result.detail = error.errors(include_url=False, include_context=False)
        except DomainError as error:
            # Each grade's status and body as POST /api/review/{card_id} answers them.
            result.status, result.detail = error.status, error_detail(error)
        results.append(result)
    return SyncOut(results=results)
