"""Combining futures (the parts of Kafka's CompletableFuture and FutureUtils that the broker uses).

A broker handler that needs the controller does not wait for it: it gets a Future, says what to do
when that completes, and returns. `handle` is CompletableFuture.handle (turn an outcome, value or
exception, into a new value), `compose` is thenCompose (follow a value with another asynchronous
step), `all_of` is FutureUtils.combineFutures (one future for many, complete when the last one is).
Each callback runs on whichever thread completes the future it waits on, or at once on the caller's
thread when that future is already done.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")
U = TypeVar("U")


def completed(value: T) -> Future[T]:
    future: Future[T] = Future()
    future.set_result(value)
    return future


def failed(error: BaseException) -> Future[Any]:
    future: Future[Any] = Future()
    future.set_exception(error)
    return future


def handle(future: Future[T], fn: Callable[[Future[T]], U]) -> Future[U]:
    """fn gets the finished future (its value or its exception) and its return value is the result;
    if fn raises, the result fails with that exception."""
    result: Future[U] = Future()

    def done(finished: Future[T]) -> None:
        try:
            result.set_result(fn(finished))
        except Exception as e:  # the failure belongs to the result, not to the thread that ran fn
            result.set_exception(e)

    future.add_done_callback(done)
    return result


def compose(future: Future[T], fn: Callable[[T], Future[U]]) -> Future[U]:
    """A value goes on to fn's asynchronous step; an exception skips it."""
    result: Future[U] = Future()

    def copy(finished: Future[U]) -> None:
        error = finished.exception()
        if error is not None:
            result.set_exception(error)
        else:
            result.set_result(finished.result())

    def done(finished: Future[T]) -> None:
        error = finished.exception()
        if error is not None:
            result.set_exception(error)
            return
        try:
            fn(finished.result()).add_done_callback(copy)
        except Exception as e:
            result.set_exception(e)

    future.add_done_callback(done)
    return result


def all_of(futures: list[Future[T]]) -> Future[list[T]]:
    """The values in order once every future is done; the first exception (in order) if any failed."""
    result: Future[list[T]] = Future()
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_: Future[T]) -> None:
        with lock:
            remaining[0] -= 1
            if remaining[0]:
                return
        error = next((f.exception() for f in futures if f.exception() is not None), None)
        if error is not None:
            result.set_exception(error)
        else:
            result.set_result([f.result() for f in futures])

    if not futures:
        result.set_result([])
    for future in futures:
        future.add_done_callback(one_done)
    return result
