"""The hierarchical timing wheel timer behind every purgatory (Kafka's org.apache.kafka.server.util.timer).

Seed 000 "Purgatories and Delayed Operations": the expiry half of a purgatory.
"""

from kafka.utils.timer.delay_queue import DelayQueue
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.timer.timer import Timer
from kafka.utils.timer.timer_task import TimerTask
from kafka.utils.timer.timer_task_entry import TimerTaskEntry
from kafka.utils.timer.timer_task_list import TimerTaskList
from kafka.utils.timer.timing_wheel import TimingWheel

__all__ = [
    "DelayQueue",
    "SystemTimer",
    "Timer",
    "TimerTask",
    "TimerTaskEntry",
    "TimerTaskList",
    "TimingWheel",
]
