"""Errors as pages for people and JSON for the API: never a traceback."""

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException

logger = logging.getLogger("ringside")


def wants_json(request: Request) -> bool:
    accept = request.headers.get("accept", "")
    return request.url.path.startswith("/api/") or (
        "application/json" in accept and "text/html" not in accept
    )


def _page(request: Request, status: int, title: str, message: str) -> HTMLResponse:
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(
        request,
        "errors/error.html",
        {"status": status, "title": title, "message": message},
        status_code=status,
    )


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if wants_json(request):
        return JSONResponse(
            {"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers
        )
    if exc.status_code == 404:
        return _page(request, 404, "Not found", "There is no page at this address.")
    return _page(request, exc.status_code, "Something is not right", str(exc.detail))


async def validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    if wants_json(request):
        detail = [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]} for e in exc.errors()]
        return JSONResponse({"detail": detail}, status_code=422)
    message = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
    return _page(request, 422, "That request cannot be understood", message)


async def server_error(request: Request, exc: Exception) -> Response:
    logger.exception("unhandled error on %s %s", request.method, request.url.path)
    if wants_json(request):
        return JSONResponse({"detail": "Internal server error."}, status_code=500)
    return _page(request, 500, "Something broke", "The error was logged. Please try again.")


async def sign_in_required(request: Request, exc: Exception) -> Response:
    from urllib.parse import quote

    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/login?next={quote(target)}", status_code=303)


def install(app: FastAPI) -> None:
    from app.web.identity import SignInRequired

    app.add_exception_handler(SignInRequired, sign_in_required)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(Exception, server_error)
