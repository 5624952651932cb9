"""Commands that serve a storage: storage-proxy."""

from __future__ import annotations

import argparse
import sys

from heurtune.cli._common import Command, storage_option


class StorageProxy(Command):
    name = "storage-proxy"
    help = "Optuna's gRPC storage proxy in front of a database (workers: --storage grpc://)"

    def add_arguments(self, s: argparse.ArgumentParser) -> None:
        from heurtune.tuning import DEFAULT_PROXY_HOST, DEFAULT_PROXY_PORT

        storage_option(s)
        s.add_argument("--host", default=DEFAULT_PROXY_HOST,
                       help=f"the address to listen on (default {DEFAULT_PROXY_HOST}, this "
                            "machine only; the proxy has no authentication nor encryption: "
                            "open it to a trusted network only)")
        s.add_argument("--port", type=int, default=DEFAULT_PROXY_PORT,
                       help=f"the port to listen on (default {DEFAULT_PROXY_PORT})")

    def run(self, args: argparse.Namespace) -> int:
        from heurtune.tuning import serve_proxy
        from heurtune.tuning.study import storage_text

        def ready(where: str) -> None:
            print(f"storage proxy for {storage_text(args.storage)} listening on {where}: "
                  f"workers give --storage grpc://{where} (Ctrl-C stops it)", flush=True)
            if args.host not in ("127.0.0.1", "localhost", "::1"):
                print(f"heurtune: warning: anyone who reaches {where} can read and change "
                      f"every study in {storage_text(args.storage)} (no authentication nor "
                      "encryption)",
                      file=sys.stderr, flush=True)

        serve_proxy(args.storage, host=args.host, port=args.port, ready=ready)
        return 0
