"""A modern-era MCP server (protocol 2026-07-28) from the official Python SDK, for inspect tests.

Usage: python modern_mcp_server.py [--extension] [--logging] [--reorder] [--mutate]

- Serves Streamable HTTP at /mcp on 127.0.0.1 (the SDK answers `server/discover` and the
  legacy `initialize` handshake alike).
- tools/list carries the cache hints ttlMs=60000, cacheScope=public (the SDK's CacheHint).
- --extension advertises one extension (com.example/inspect-test) under capabilities.extensions.
- --logging re-provides logging/setLevel, so capabilities declare `logging` (deprecated on 2026-07-28).
- --reorder answers every other tools/list in reverse order (an unstable tool list).
- --mutate answers every other tools/list with a changed description of `echo` (a tool whose
  definition changes between identical calls).
Binds a free loopback port itself and prints "listening <port>" once it holds the socket, so no
other process can take the port between its choice and the bind.
"""
from __future__ import annotations

import argparse
import socket
import sys

import mcp_types
import uvicorn
from mcp.server.caching import CacheHint
from mcp.server.extension import Extension
from mcp.server.mcpserver import MCPServer


class InspectTestExtension(Extension):
    identifier = "com.example/inspect-test"

    def settings(self) -> dict[str, object]:
        return {"level": 1}


def build(args: argparse.Namespace) -> MCPServer:
    hints = {"tools/list": CacheHint(ttl_ms=60_000, scope="public")}
    server = MCPServer(
        name="veronikai-modern-peer",
        version="2.3.0-test",
        extensions=[InspectTestExtension()] if args.extension else None,
        cache_hints=hints,
    )

    @server.tool(description="Echoes its input")
    def echo(text: str) -> str:
        return text

    @server.tool(description="Adds two numbers")
    def add(a: int, b: int) -> int:
        return a + b

    low = server._lowlevel_server  # the lowlevel server behind MCPServer
    if args.logging:
        # Re-provide logging/setLevel (removed by 2026-07-28), so capabilities declare `logging`.
        async def set_level(ctx, params):  # noqa: ANN001
            return {}

        low.add_request_handler("logging/setLevel", mcp_types.RequestParams, set_level)
    # Every second tools/list answer changed: the order (--reorder) or echo's description (--mutate).
    changes = []
    if args.reorder:
        changes.append(lambda tools: list(reversed(tools)))
    if args.mutate:
        changes.append(lambda tools: [t.model_copy(update={"description": f"{t.description} (changed)"}) if t.name == "echo" else t for t in tools])
    if changes:
        entry = low._request_handlers["tools/list"]
        calls = {"n": 0}

        async def changing(ctx, params):  # noqa: ANN001
            result = await entry.handler(ctx, params)
            calls["n"] += 1
            if calls["n"] % 2 == 0:
                tools = list(result.tools)
                for change in changes:
                    tools = change(tools)
                result = result.model_copy(update={"tools": tools})
            return result

        low.add_request_handler("tools/list", entry.params_type, changing)
    return server


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--extension", action="store_true")
    p.add_argument("--logging", action="store_true")
    p.add_argument("--reorder", action="store_true")
    p.add_argument("--mutate", action="store_true")
    args = p.parse_args()
    app = build(args).streamable_http_app(stateless_http=True, json_response=True)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_level="warning")
    server = uvicorn.Server(config)
    print(f"listening {sock.getsockname()[1]}", flush=True)
    server.run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
