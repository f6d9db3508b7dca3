package com.payments.reconciler.local.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RequestQuotaTest {

    private final AtomicLong nanos = new AtomicLong();

    @Test
    void aSecondsBurstIsAdmittedThenRefusedWithWhenToComeBackAndTheBucketRefills() {
        RequestQuota quota = new RequestQuota(4, 100, nanos::get);
        for (int i = 0; i < 4; i++) {
            assertThat(quota.admit()).isNull();
            quota.done();
        }
        assertThat(quota.admit()).isEqualTo(Duration.ofSeconds(1));
        assertThat(quota.violations()).isEqualTo(1);

        nanos.addAndGet(250_000_000L);   // a quarter second: one token back
        assertThat(quota.admit()).isNull();
        quota.done();
        assertThat(quota.admit()).isNotNull();
        assertThat(quota.violations()).isEqualTo(2);
        assertThat(quota.admitted()).isEqualTo(5);
    }

    @Test
    void requestsBeyondTheConcurrencyLimitAreRefusedEvenWithTokensLeft() {
        RequestQuota quota = new RequestQuota(100, 2, nanos::get);
        assertThat(quota.admit()).isNull();
        assertThat(quota.admit()).isNull();
        assertThat(quota.admit()).isEqualTo(Duration.ofSeconds(1));
        quota.done();
        assertThat(quota.admit()).isNull();
        assertThat(quota.peakInFlight()).isEqualTo(2);
        assertThat(quota.violations()).isEqualTo(1);
        assertThat(quota.overConcurrency()).as("counted apart from the rate's refusals").isEqualTo(1);
    }

    @Test
    void aQuotaLoweredMidNightRefusesAtTheLowerRateFromThenOn() {
        RequestQuota quota = new RequestQuota(10, 100, nanos::get);
        quota.lowerTo(2);
        assertThat(quota.requestsPerSecond()).isEqualTo(2.0);
        assertThat(quota.admit()).isNull();
        quota.done();
        assertThat(quota.admit()).isNull();
        quota.done();
        assertThat(quota.admit()).as("the bucket holds one second of the lowered quota").isNotNull();
        assertThat(quota.overConcurrency()).isZero();
        nanos.addAndGet(500_000_000L);   // half a second at 2/s: one token back
        assertThat(quota.admit()).isNull();
        assertThatThrownBy(() -> quota.lowerTo(5)).hasMessageContaining("at most 2.0");
    }
}
