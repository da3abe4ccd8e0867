"""Errors as pages for people and JSON for the API: never a traceback."""

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel
from sqlalchemy.exc import DataError, OperationalError
from starlette.exceptions import HTTPException

from app.db import storage_problem
from app.errors import DomainError
from app.web.identity import SignInRequired, resolve_quietly

logger = logging.getLogger("ringside")


class ErrorOut(BaseModel):
    """Every error: a message, or for a bad field the list of what is wrong where."""

    detail: str | list[dict[str, Any]]


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorOut, "description": description}


#: Documented on every API route, so clients (and the schema tests) know what can come back.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _error("The request body is not valid JSON or form data"),
    401: _error("Sign in, or send an API token"),
    403: _error("Refused: missing CSRF token, or a request from another site"),
    404: _error("No such thing, or not yours"),
    409: _error("Not possible in the current state (e.g. time is up)"),
    413: _error("The request body is too large"),
    429: _error("Too many failed sign-ins, or past a daily limit; see Retry-After"),
    503: _error("Cannot save now: the server's disk is full or its database read-only"),
}


def wants_json(request: Request) -> bool:
    accept = request.headers.get("accept", "")
    path = request.url.path
    return (
        path.startswith("/api/")
        or path in ("/healthz", "/readyz")
        or ("application/json" in accept and "text/html" not in accept)
    )


async def _page(
    request: Request,
    status: int,
    title: str,
    message: str,
    headers: Mapping[str, str] | None = None,
) -> HTMLResponse:
    """An error page. It is rendered outside any route (a 404 for an unknown address has run
    no dependency), so who is asking is resolved here first, the same way the routes do: the
    page's header and forms need the CSRF token, and the template must not look it up."""
    try:
        await resolve_quietly(request)
    except Exception:  # the database itself may be what failed: the page shows no forms then
        logger.debug("no identity for the error page of %s", request.url.path, exc_info=True)
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(
        request,
        "errors/error.html",
        {"status": status, "title": title, "message": message},
        status_code=status,
        headers=headers,
    )


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if wants_json(request):
        return JSONResponse(
            {"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers
        )
    if exc.status_code == 404:
        return await _page(
            request, 404, "Not found", "There is no page at this address.", exc.headers
        )
    title = "Something is not right"
    return await _page(request, exc.status_code, title, str(exc.detail), exc.headers)


async def validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    if wants_json(request):
        detail = [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]} for e in exc.errors()]
        return JSONResponse({"detail": detail}, status_code=422)
    message = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
    return await _page(request, 422, "That request cannot be understood", message)


async def domain_error(request: Request, exc: Exception) -> Response:
    """A feature refused the request (app.errors.DomainError): its kind decides the status;
    a field error names the field the way pydantic's 422 does."""
    assert isinstance(exc, DomainError)
    retry_after = getattr(exc, "retry_after", None)  # a limit that lifts by itself (429)
    if wants_json(request):
        response: Response = JSONResponse({"detail": error_detail(exc)}, status_code=exc.status)
    else:
        title = TITLES.get(exc.status, "Something is not right")
        response = await _page(request, exc.status, title, str(exc))
    if retry_after:
        response.headers["Retry-After"] = str(retry_after)
    return response


def error_detail(error: DomainError) -> Any:
    """The JSON `detail` of a refusal: a field error as pydantic's 422 lists it, else the
    message (also each refused grade's in an offline batch, app.web.review.offline)."""
    if error.status == 422:
        loc = ["body", error.field] if error.field else ["body"]
        return [{"loc": loc, "msg": error.message, "type": error.code}]
    return error.message


TITLES = {
    404: "Not found",
    409: "Not possible now",
    413: "Too large",
    429: "Too many for now",
    422: "That request cannot be understood",
}


async def server_error(request: Request, exc: Exception) -> Response:
    logger.exception("unhandled error on %s %s", request.method, request.url.path)
    if wants_json(request):
        return JSONResponse({"detail": "Internal server error."}, status_code=500)
    return await _page(request, 500, "Something broke", "The error was logged. Please try again.")


STORAGE_MESSAGES = {
    "storage full": "The server cannot save anything right now: its disk is full. Nothing was "
    "saved; please try again later.",
    "read-only": "The server cannot save anything right now: its database is read-only. "
    "Nothing was saved; please try again later.",
}


async def database_error(request: Request, exc: Exception) -> Response:
    """A full disk or a read-only database: 503 and one short log line, not a traceback per
    request; anything else is a 500 as usual."""
    problem = storage_problem(exc)
    if problem is None:
        return await server_error(request, exc)
    logger.warning(
        "cannot write to the database (%s) on %s %s: %s",
        problem, request.method, request.url.path, getattr(exc, "orig", exc),
    )  # fmt: skip
    message = STORAGE_MESSAGES[problem]
    headers = {"Retry-After": "60"}
    if wants_json(request):
        return JSONResponse({"detail": message}, status_code=503, headers=headers)
    return await _page(request, 503, "Cannot save right now", message, headers)


async def unstorable_text(request: Request, exc: Exception) -> Response:
    """The last line of defence behind app.web.text.CleanText: a character a database driver
    cannot store (U+0000 on PostgreSQL, a lone surrogate on SQLite) that reached it."""
    logger.warning("unstorable text on %s %s: %s", request.method, request.url.path, exc)
    message = "The request holds a value the database cannot store (such as a NUL character)."
    if wants_json(request):
        return JSONResponse({"detail": message}, status_code=422)
    return await _page(request, 422, "That request cannot be understood", message)


async def sign_in_required(request: Request, exc: Exception) -> Response:
    from urllib.parse import quote

    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/login?next={quote(target)}", status_code=303)


def install(app: FastAPI) -> None:
    app.add_exception_handler(SignInRequired, sign_in_required)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(DomainError, domain_error)
    app.add_exception_handler(OperationalError, database_error)
    app.add_exception_handler(DataError, unstorable_text)
    app.add_exception_handler(UnicodeEncodeError, unstorable_text)
    app.add_exception_handler(Exception, server_error)
