#!/usr/bin/env python3
"""A scripted stand-in for an LLM provider, for attnverify's tests (stdlib only).

Listens on 127.0.0.1 with an ephemeral port (written to --port-file once bound), over
plain HTTP or, with --cert/--key, HTTPS. Each POST takes the next step of the --script
JSON file (the last step repeats once the list is used up):

  {"steps": [
     {"reply": "anthropic", "text": "...", "usage": {...}},   # a Messages answer
     {"reply": "openai", "text": "...", "usage": {...}},      # a chat completion
     {"status": 529, "body": {...} | "text", "headers": {"retry-after": "1"}},
     {"delay_s": 3, ...},        # sleep before answering (timeouts)
     {"reset": true},            # close the connection with a TCP reset, no answer
     {"body_size": 20000000}     # a body of that many bytes (caps)
  ]}

Every request received is appended to --log as one JSON line: method, path, headers,
body. Tests read it to check what reached the "provider" (and what never did).
"""
import argparse
import http.server
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time


def anthropic_body(step, request):
    usage = {"input_tokens": 21, "output_tokens": 17,
             "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    usage.update(step.get("usage", {}))
    return {
        "id": step.get("id", "msg_test_0001"),
        "type": "message",
        "role": "assistant",
        "model": request.get("model", ""),
        "content": [{"type": "text", "text": step.get("text", "Split-k splits the key "
                     "sequence across thread blocks and merges their partial softmax "
                     "results in a combine step.")}],
        "stop_reason": "end_turn",
        "usage": usage,
    }


def openai_body(step, request):
    usage = {"prompt_tokens": 30, "completion_tokens": 12,
             "prompt_tokens_details": {"cached_tokens": 0}}
    usage.update(step.get("usage", {}))
    return {
        "id": step.get("id", "chatcmpl-test-0001"),
        "object": "chat.completion",
        "model": request.get("model", ""),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant",
                                 "content": step.get("text", "Split-k divides the keys "
                                                     "among blocks and reduces them.")}}],
        "usage": usage,
    }


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def do_POST(self):
        length = int(self.headers.get("content-length", "0") or "0")
        raw = self.rfile.read(length) if length > 0 else b""
        server = self.server
        with server.lock:
            entry = {"method": "POST", "path": self.path,
                     "headers": {k.lower(): v for k, v in self.headers.items()},
                     "body": raw.decode("utf-8", "replace")}
            with open(server.log_path, "a", encoding="utf-8") as log:
                log.write(json.dumps(entry) + "\n")
            steps = server.script.get("steps", [{"reply": "anthropic"}])
            step = steps[min(server.count, len(steps) - 1)]
            server.count += 1
        try:
            request = json.loads(raw.decode("utf-8")) if raw else {}
        except ValueError:
            request = {}
        if step.get("delay_s"):
            time.sleep(float(step["delay_s"]))
        if step.get("reset"):
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        self.answer(step, request)

    def answer(self, step, request):
        status = int(step.get("status", 200))
        headers = {"content-type": "application/json",
                   "request-id": step.get("request_id", "req_test_%d" % self.server.count)}
        headers.update(step.get("headers", {}))
        if step.get("body_size"):
            size = int(step["body_size"])
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("content-length", str(size))
            self.end_headers()
            chunk = b"x" * 65536
            try:
                while size > 0:
                    n = min(size, len(chunk))
                    self.wfile.write(chunk[:n])
                    size -= n
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                pass
            self.close_connection = True
            return
        if step.get("reply") == "anthropic":
            body = json.dumps(anthropic_body(step, request)).encode()
        elif step.get("reply") == "openai":
            body = json.dumps(openai_body(step, request)).encode()
        else:
            b = step.get("body", "")
            body = (b if isinstance(b, str) else json.dumps(b)).encode()
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--cert")
    ap.add_argument("--key")
    args = ap.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(args.script, encoding="utf-8") as f:
        server.script = json.load(f)
    server.log_path = args.log
    server.lock = threading.Lock()
    server.count = 0
    open(args.log, "a").close()
    if args.cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.cert, args.key)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
