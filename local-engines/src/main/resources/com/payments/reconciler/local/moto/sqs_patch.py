"""Makes moto's ReceiveMessage cost linear in the queue's depth instead of quadratic.

moto 5.2.1's SQSBackend.receive_message asks is_message_valid_based_on_retention_period for every message it
returns, and that reads the queue's MessageRetentionPeriod through get_queue_attributes, which evaluates
Queue.attributes -- every attribute, ApproximateNumberOfMessages* included, each a scan of all the queue's
messages computing the time per message -- three times per attribute name. Profiled during a local night's
ingestion (py-spy on the moto process), that was about 60 % of moto's time with ~100 messages in the queue.

Here the check reads the one attribute it needs from the queue object. And the SQS models' clock reads
(unix_time, unix_time_millis: every message's visibility and delay is checked against them, on every receive, send
and attribute read) take the time from time.time() instead of building two datetimes per call: the same number, the
seconds since the epoch. Nothing else changes: the same retention period, the same comparisons, moto's own receive
loop, visibility, receive counts and redrive to the dead-letter queue.

install() checks that the method still reads the attribute the way this patch replaces and stops the launcher
(SystemExit) with a clear message if not, so a moto upgrade cannot silently change what the patch does.
"""
import inspect
import time


def install():
    from moto.sqs import models
    from moto.sqs.models import SQSBackend
    from moto.core import utils

    unix_time = _install_fast_clock(models, utils)

    method = SQSBackend.is_message_valid_based_on_retention_period
    if getattr(method, "_reconciler_patched", False):
        return
    source = inspect.getsource(method)
    if 'get_queue_attributes(' not in source or '"MessageRetentionPeriod"' not in source or "sent_timestamp" not in source:
        raise SystemExit("moto changed: SQSBackend.is_message_valid_based_on_retention_period no longer reads "
                         "MessageRetentionPeriod through get_queue_attributes; review sqs_patch.py")

    def is_message_valid_based_on_retention_period(self, queue_name, message):
        # The same value get_queue_attributes returns for the name (Queue.attributes reads the attribute by its
        # snake_case name), without computing the queue's other attributes.
        retention_period = self.get_queue(queue_name).message_retention_period
        retain_until = retention_period + message.sent_timestamp / 1000
        return retain_until > unix_time()

    is_message_valid_based_on_retention_period._reconciler_patched = True
    SQSBackend.is_message_valid_based_on_retention_period = is_message_valid_based_on_retention_period


def _install_fast_clock(models, utils):
    """moto.core.utils.unix_time(dt=None) is (utcnow() - utcfromtimestamp(0)) in seconds: time.time() when no dt is given."""
    for name in ("unix_time", "unix_time_millis"):
        if getattr(models, name, None) is not getattr(utils, name):
            raise SystemExit("moto changed: moto.sqs.models no longer uses moto.core.utils." + name + "; review sqs_patch.py")
    original_seconds = utils.unix_time
    original_millis = utils.unix_time_millis

    def unix_time(dt=None):
        return time.time() if dt is None else original_seconds(dt)

    def unix_time_millis(dt=None):
        return time.time() * 1000.0 if dt is None else original_millis(dt)

    models.unix_time = unix_time
    models.unix_time_millis = unix_time_millis
    return unix_time
