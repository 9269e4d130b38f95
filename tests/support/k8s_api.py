"""A Kubernetes API emulator (kmock) on 127.0.0.1 with a fake kubelet that runs a pod's main container locally.

It answers what PipesK8sClient calls (create, list with a field selector, log, delete). The fake kubelet plays
the node: it resolves the worker container's env (values, Secret references, envFrom Secrets) as the kubelet
would, runs its command as a local process, reports container statuses, and serves its log with timestamps.
No scheduling, no images, no probes, no vLLM: the sidecar only gets statuses (and exits 143 at the end, as a
SIGTERMed vLLM may).
"""

from __future__ import annotations

import asyncio
import copy
import os
import re
import sys
import threading
import uuid
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kmock import KubernetesEmulator, Server, action

LOG_PATH = re.compile(r"/api/v1/namespaces/(?P<ns>[^/]+)/pods/(?P<name>[^/]+)/log")


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def container_env(container: Mapping[str, Any], secrets: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """A container's environment as the kubelet builds it: image basics, envFrom Secrets, then env entries."""
    # The image's own PATH/HOME: this interpreter's bin folder stands in for the image's `python`, and the
    # checkout under test (on PYTHONPATH, tests/conftest.py) for the package installed in the image.
    env = {"PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]), "HOME": "/tmp"}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    for source in container.get("envFrom") or []:
        env.update(secrets[source["secretRef"]["name"]])
    for entry in container.get("env") or []:
        if "value" in entry:
            env[entry["name"]] = entry["value"]
        else:
            ref = entry["valueFrom"]["secretKeyRef"]
            env[entry["name"]] = secrets[ref["name"]][ref["key"]]
    return env


class _ApiServer(KubernetesEmulator):  # type: ignore[misc]  # kmock ships no types: a base of type Any
    """kmock's emulator, plus what the API server adds on create: namespace, uid, `status.phase: Pending`."""

    async def _handle(self, request: Any) -> Any:
        response = await super()._handle(request)
        if request.action == action.CREATE and request.resource is not None and response.status < 300:
            data = request.data or {}
            key = (request.resource, request.namespace, data.get("metadata", {}).get("name"))
            if key in self.objects and "status" not in self.objects[key].raw:
                meta = {"namespace": request.namespace, "uid": str(uuid.uuid4())}
                self.objects[key].patch({"metadata": meta, "status": {"phase": "Pending"}})
        return response


class EmulatedCluster:
    """Context manager: an emulated API server plus one fake node; `kubeconfig` points a client at it."""

    def __init__(self, secrets: Mapping[str, Mapping[str, str]], workdir: Path) -> None:
        self.secrets = {k: dict(v) for k, v in secrets.items()}
        self.workdir = workdir
        self.created: list[dict[str, Any]] = []  # each pod as the API server received it
        self.logs: dict[str, bytes] = {}
        self.exit_codes: dict[str, int] = {}
        self._done: dict[str, asyncio.Event] = {}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="kmock", daemon=True)

    def _run(self, coro: Any, timeout: float = 30.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def __enter__(self) -> EmulatedCluster:
        self._thread.start()
        self._run(self._start())
        self.kubeconfig = self.workdir / "kubeconfig"
        self.kubeconfig.write_text(
            "apiVersion: v1\nkind: Config\ncurrent-context: emu\n"
            f"clusters: [{{name: emu, cluster: {{server: 'http://127.0.0.1:{self.server.port}'}}}}]\n"
            "users: [{name: emu, user: {token: emulated}}]\n"
            "contexts: [{name: emu, context: {cluster: emu, user: emu, namespace: default}}]\n"
        )
        return self

    def __exit__(self, *exc: object) -> None:
        self._run(self._stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    async def _start(self) -> None:
        self.api = _ApiServer()
        await self.api.__aenter__()
        self.server = Server(self.api)
        await self.server.__aenter__()
        self.api["get", LOG_PATH] << self._serve_log
        self._kubelet = asyncio.ensure_future(self._kubelet_loop())

    async def _stop(self) -> None:
        self._kubelet.cancel()
        await self.server.__aexit__(None, None, None)
        await self.api.__aexit__(None, None, None)

    @property
    def requests(self) -> list[str]:
        """Every request the API server saw, as 'METHOD path'."""
        return [f"{r.method.value.upper()} {r.url.path}" for r in list(self.api)]

    async def _serve_log(self, request: Any) -> bytes:
        # `follow=true` streams until the container exits; here the whole log is sent once it has.
        name = LOG_PATH.match(request.url.path)["name"]  # type: ignore[index]  # the route only matches log paths
        await self._done[name].wait()
        return self.logs[name]

    async def _kubelet_loop(self) -> None:
        started: set[str] = set()
        while True:
            for (_, _ns, name), obj in list(self.api.objects.items()):
                if name not in started and not obj.deleted:
                    started.add(name)
                    self.created.append(copy.deepcopy(obj.raw))
                    self._done[name] = asyncio.Event()
                    asyncio.ensure_future(self._run_pod(obj, name))
            await asyncio.sleep(0.02)

    async def _run_pod(self, obj: Any, name: str) -> None:
        spec = obj.raw["spec"]
        [main] = spec["containers"]
        sidecars = [c["name"] for c in spec.get("initContainers") or []]

        def status(phase: str, main_state: dict[str, Any], side_state: dict[str, Any], ready: bool) -> None:
            obj.patch(
                {
                    "status": {
                        "phase": phase,
                        "initContainerStatuses": [
                            {
                                "name": s,
                                "ready": ready,
                                "restartCount": 0,
                                "image": "",
                                "imageID": "",
                                "state": side_state,
                            }
                            for s in sidecars
                        ],
                        "containerStatuses": [
                            {
                                "name": main["name"],
                                "ready": ready,
                                "restartCount": 0,
                                "image": main["image"],
                                "imageID": "",
                                "state": main_state,
                            }
                        ],
                    }
                }
            )

        running = {"running": {"startedAt": _now()}}
        status("Pending", {"waiting": {"reason": "PodInitializing"}}, running, False)
        await asyncio.sleep(0.1)  # the sidecar's startup probe, in miniature
        proc = await asyncio.create_subprocess_exec(
            *main["command"],
            env=container_env(main, self.secrets),
            cwd=self.workdir,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,  # a container's log holds both streams
        )
        status("Running", running, running, True)
        lines = []
        assert proc.stdout is not None
        async for line in proc.stdout:
            lines.append(_now().encode() + b" " + line)
        rc = await proc.wait()
        self.logs[name], self.exit_codes[name] = b"".join(lines), rc
        finished = {"terminated": {"exitCode": rc, "reason": "Completed" if rc == 0 else "Error"}}
        # Kubernetes stops the sidecar once the worker is done; vLLM may exit 143 on that SIGTERM.
        stopped = {"terminated": {"exitCode": 143, "reason": "Error"}}
        status("Succeeded" if rc == 0 else "Failed", finished, stopped, False)
        self._done[name].set()
