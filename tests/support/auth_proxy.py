"""A loopback TCP proxy that adds `Authorization: Bearer <token>` to every HTTP request it
forwards, everything else byte for byte (Host and Origin included).

For test clients that cannot send a header of their own — the official conformance suite —
so they meet the real endpoint, token check and all.  Request bodies must carry a
Content-Length (what Node's fetch sends for JSON); responses are streamed back untouched.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

MAX_HEAD = 64 * 1024


async def _requests(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, header: bytes) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            if len(head) > MAX_HEAD:
                break
            request_line, _, rest = head.partition(b"\r\n")
            length = 0
            for line in rest.split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
                elif name.strip().lower() == b"transfer-encoding":
                    return  # not needed by the clients this serves
            writer.write(request_line + b"\r\n" + header + rest)
            if length:
                writer.write(await reader.readexactly(length))
            await writer.drain()
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError):
        pass
    finally:
        writer.close()


async def _responses(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


@contextmanager
def auth_proxy(target_port: int, token: str) -> Iterator[int]:
    """Run the proxy on a free loopback port (yielded) in a thread of its own until the block ends."""
    header = f"Authorization: Bearer {token}\r\n".encode("ascii")
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    port: list[int] = []

    async def handle(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(_requests(client_reader, server_writer, header), _responses(server_reader, client_writer))

    async def start() -> asyncio.Server:
        server = await asyncio.start_server(handle, "127.0.0.1", 0, limit=MAX_HEAD)
        port.append(server.sockets[0].getsockname()[1])
        ready.set()
        return server

    server_holder: list[asyncio.Server] = []

    def run() -> None:
        asyncio.set_event_loop(loop)
        server_holder.append(loop.run_until_complete(start()))
        loop.run_forever()

    thread = threading.Thread(target=run, name="auth-proxy", daemon=True)
    thread.start()
    if not ready.wait(10):
        raise RuntimeError("the auth proxy did not start")
    try:
        yield port[0]
    finally:

        async def stop() -> None:
            server_holder[0].close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
