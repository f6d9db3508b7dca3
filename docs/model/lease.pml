/*
 * lease.pml -- the lease with an epoch fencing token, and the fenced protected
 * write, as specified in design.md sections 3 (lease), 4 (protected write) and
 * 9 (invariants).  One model, several variants chosen at compile time, so the
 * checks below share every line except the fence itself:
 *
 *   (default) / -DFENCED   item 0 of the TransactWriteItems is the
 *                          ConditionCheck Leases: #owner = :me AND epoch = :epoch.
 *                          Expected: no assertion violation, no invalid end state.
 *   -DUNFENCED             the lease check is dropped; the version, state,
 *                          settlement and outbox conditions stay.
 *                          Expected: I1 violated (a stale worker commits after a takeover).
 *   -DHIGHEST_EPOCH_SEEN   the alternative from the incident review: every
 *                          authorisation remembers the highest epoch that touched
 *                          it, and a write needs lastEpoch <= :epoch instead of
 *                          the lease check.  Expected: I1 violated on an
 *                          authorisation the new leader has not touched yet.
 *   -DNO_SETTLEMENT_CHECK  sanity mutant (fenced, but item 2 -- the Settlements
 *                          ConditionCheck -- dropped): shows the I3 assertion
 *                          is not vacuous.  Expected: I3 violated.
 *
 * Bounds: 3 workers, 2 authorisations, at most MAXT (3) takeovers in a run
 * (-DMAXT=n changes it).  Time is not modelled as numbers: DynamoDB compares
 * expiresAt with a caller-supplied now, and any worker can be paused for any
 * time (GC, a frozen Lambda), so "the lease has expired" is a flag that the
 * clock process may set at any moment while the lease is held.
 *
 * Atomicity: every d_step below is ONE DynamoDB request -- an UpdateItem with a
 * ConditionExpression, or one TransactWriteItems.  DynamoDB evaluates a
 * condition and applies the update as one serializable step, and a
 * TransactWriteItems is serializable with every other write to its items, so
 * each request is one indivisible transition here.  Between two requests of a
 * worker, anything may happen (that gap is the "pause").
 */

#define NW 3                /* workers (concurrent copies of the job) */
#define NA 2                /* authorisations */
#ifndef MAXT
#define MAXT 3              /* takeovers (successful acquires) in one run */
#endif

#if defined(UNFENCED) && defined(HIGHEST_EPOCH_SEEN)
#error "choose at most one of UNFENCED, HIGHEST_EPOCH_SEEN"
#endif
#if defined(FENCED) && (defined(UNFENCED) || defined(HIGHEST_EPOCH_SEEN))
#error "FENCED is the default; do not combine it with another variant"
#endif

/* Authorisations.state */
#define AUTHORISED        0
#define RELEASE_REQUESTED 1
#define SETTLED           2

/* Outcome of a worker's last request (worker-local) */
#define NONE      0
#define PENDING   1   /* read says: eligible, go and write */
#define COMMITTED 2   /* the transaction committed */
#define REFUSED   3   /* Stale / Settled / AlreadyCommanded: decide again later */
#define FENCED_   4   /* Fenced or LeaseLost: stop at once, never retried */

/* Owner id, unique per acquisition attempt ({executionName}/{uuid} in the
 * design).  An attempt is identified by its worker and by the number of
 * takeovers committed when it was minted: a worker's next attempt after one of
 * its attempts took over always sees a larger count.  An attempt that never
 * took over leaves no trace in the lease, so its id may be reused harmlessly. */
#define OWNER_ID(p, t) ((p) * MAXT + (t) + 1)

/* ---- the tables --------------------------------------------------------- */

/* Leases[leaseName] -- the item is never deleted. */
byte leaseOwner = 0;        /* #owner; 0 = attribute absent (free)        */
byte leaseEpoch = 0;        /* epoch; only ever grows                     */
bool leaseExpired = false;  /* expiresAt <= the now of any later request  */

/* Authorisations[id] */
typedef Auth {
  byte state;               /* AUTHORISED, RELEASE_REQUESTED, SETTLED     */
  byte version;
#ifdef HIGHEST_EPOCH_SEEN
  byte lastEpoch;           /* highest epoch that touched the item        */
#endif
};
Auth auth[NA];
bool settled[NA];           /* Settlements[id] exists                      */
bool outbox[NA];            /* ReleaseCommands[release-hold:{id}] exists   */

/* ---- ghost variables (not in DynamoDB; only the assertions read them) ---- */

byte takeovers = 0;            /* takeovers committed so far (the bound)    */
byte latestTakeoverEpoch = 0;  /* epoch set by the latest committed takeover */
byte epochHighWater = 0;       /* highest epoch the lease item ever held     */
byte releasesCommitted[NA];    /* committed release transactions per auth   */

/* I5: the lease record's epoch never decreases (checked at every lease write;
 * the model has no DeleteItem, so the record is never deleted). */
#define I5_EPOCH_NEVER_DECREASES \
  assert(leaseEpoch >= epochHighWater); epochHighWater = leaseEpoch

/* The fence: item 0 of the TransactWriteItems, per variant. */
#if defined(UNFENCED)
#define FENCE_OK (true)
#elif defined(HIGHEST_EPOCH_SEEN)
#define FENCE_OK (auth[a].lastEpoch <= myEpoch)
#else
#define FENCE_OK (leaseOwner == me && leaseEpoch == myEpoch)
#endif

/* Item 2: ConditionCheck Settlements[id] attribute_not_exists(authorisationId). */
#ifdef NO_SETTLEMENT_CHECK
#define NOT_SETTLED (true)
#else
#define NOT_SETTLED (!settled[a])
#endif

/* ---- a worker: AcquireLease, then ReconcilePage, then ReleaseLease ------ */

active [NW] proctype worker()
{
  byte me = 0;        /* owner id of the current attempt                     */
  byte myEpoch = 0;   /* fencing token returned by the acquire; 0 = none     */
  byte a = 0;         /* authorisation being decided                         */
  byte obs = 0;       /* version observed by the read                        */
  byte res = NONE;

  do
  :: takeovers >= MAXT -> break          /* bound reached: this worker stops  */
  :: takeovers < MAXT ->
     me = OWNER_ID(_pid, takeovers);     /* MintOwnerId (States.UUID)         */

acquire:
     /* AcquireLease: UpdateItem Leases, condition
      *   attribute_not_exists(#owner) OR expiresAt <= :now,
      * SET #owner = :me, epoch = if_not_exists(epoch, 0) + 1, expiresAt = :now + d,
      * ReturnValues ALL_NEW.  On ConditionalCheckFailed, ALL_OLD with
      * #owner = :me means our own earlier attempt committed and its response
      * was lost: return the epoch already held, no bump.  Else LeaseHeld. */
     d_step {
       if
       :: (leaseOwner == 0 || leaseExpired) && takeovers < MAXT ->
            leaseOwner = me;
            leaseEpoch = leaseEpoch + 1;
            leaseExpired = false;
            takeovers++;
            latestTakeoverEpoch = leaseEpoch;
            I5_EPOCH_NEVER_DECREASES;
            myEpoch = leaseEpoch
       :: else ->
            if
            :: leaseOwner == me -> myEpoch = leaseEpoch   /* retry of our own attempt */
            :: else -> myEpoch = 0                         /* LeaseHeld */
            fi
       fi
     };
     if
     :: skip                             /* the response arrived (or LeaseHeld) */
     :: myEpoch != 0 ->
          /* The response was lost (or the task timed out after the write):
           * Step Functions retries the task with the same owner id. */
          myEpoch = 0;
          goto acquire
     fi;

     /* ReconcilePage loop: this worker believes it leads with epoch myEpoch. */
     do
     :: myEpoch == 0 -> break            /* LeaseHeld: back off, try again    */
     :: myEpoch != 0 ->
        /* Read one candidate: Query pending-by-age (a GSI, eventually
         * consistent: its version is only a hint) plus GetItem Settlements.
         * The read is not part of the decision's atomicity; the transaction
         * below re-checks everything. */
        atomic {
          if :: a = 0 :: a = 1 fi;
          if
          :: obs = auth[a].version;                 /* index is up to date     */
             if
             :: auth[a].state == AUTHORISED && !settled[a] -> res = PENDING
             :: else -> res = REFUSED               /* not pending, or settled */
             fi
          :: auth[a].version > 0 && !settled[a] ->  /* index lags: still shows */
             obs = 0; res = PENDING                 /* the initial AUTHORISED  */
          fi
        };
#ifdef HIGHEST_EPOCH_SEEN
        /* The alternative stamps each authorisation it reads with its epoch
         * (UpdateItem SET lastEpoch = :epoch, condition lastEpoch <= :epoch);
         * a higher stamp means someone newer touched it: stop. */
        d_step {
          if
          :: res == PENDING && auth[a].lastEpoch <= myEpoch ->
               auth[a].lastEpoch = myEpoch
          :: res == PENDING && auth[a].lastEpoch > myEpoch -> res = FENCED_
          :: else -> skip
          fi
        };
#endif
        /* <-- the pause: the lease may expire here and another worker may
         *     take over, bump the epoch and write. */
        if
        :: res == PENDING ->
           /* The protected write: ONE TransactWriteItems
            *  #0 ConditionCheck Leases       #owner = :me AND epoch = :epoch  (the fence)
            *  #1 Update Authorisations[id]   version = :observed AND #state = AUTHORISED
            *                                 SET #state = RELEASE_REQUESTED, version + 1
            *  #2 ConditionCheck Settlements  attribute_not_exists(authorisationId)
            *  #3 Put ReleaseCommands[op]     attribute_not_exists(operationId)
            * All four conditions hold, and all writes apply, or nothing does. */
           d_step {
             if
             :: FENCE_OK && auth[a].version == obs && auth[a].state == AUTHORISED
                && NOT_SETTLED && !outbox[a] ->
                  /* I1 no stale commit: no write carrying epoch e commits after
                   * a takeover to an epoch > e has committed. */
                  assert(latestTakeoverEpoch <= myEpoch);
                  /* I3 no release of a settled authorisation at decision time. */
                  assert(!settled[a]);
                  /* I2 one release (one outbox command) per authorisation. */
                  assert(releasesCommitted[a] == 0);
                  releasesCommitted[a]++;
                  auth[a].state = RELEASE_REQUESTED;
                  auth[a].version = auth[a].version + 1;
#ifdef HIGHEST_EPOCH_SEEN
                  auth[a].lastEpoch = myEpoch;
#endif
                  outbox[a] = true;
                  res = COMMITTED
             :: else ->
                  /* Cancelled: classified by CancellationReasons index. */
                  if
                  :: !(FENCE_OK) -> res = FENCED_   /* Fenced: never retried */
                  :: else -> res = REFUSED          /* Stale/Settled/AlreadyCommanded */
                  fi
             fi
           }
        :: else -> skip
        fi;
        if
        :: res == FENCED_ -> myEpoch = 0      /* Catch -> Superseded */
        :: else -> skip
        fi;
        a = 0; obs = 0; res = NONE;

        /* Between pages the leader renews, finishes, or dies. */
        if
        :: skip                               /* next candidate */
        :: myEpoch != 0 ->
           /* Renew: UpdateItem, condition #owner = :me AND epoch = :epoch,
            * SET expiresAt = :now + d; epoch untouched.  Failure: LeaseLost. */
           d_step {
             if
             :: leaseOwner == me && leaseEpoch == myEpoch ->
                  leaseExpired = false;
                  I5_EPOCH_NEVER_DECREASES
             :: else -> myEpoch = 0
             fi
           }
        :: myEpoch != 0 ->
           /* ReleaseLease: condition #owner = :me AND epoch = :epoch,
            * REMOVE #owner SET expiresAt = :now; the epoch is kept and the item
            * is never deleted (a deleted counter would restart and revive
            * old tokens). */
           d_step {
             if
             :: leaseOwner == me && leaseEpoch == myEpoch ->
                  leaseOwner = 0;
                  leaseExpired = true;
                  I5_EPOCH_NEVER_DECREASES
             :: else -> skip
             fi;
             myEpoch = 0
           }
        :: myEpoch != 0 -> myEpoch = 0        /* crash / Lambda timeout: the lease
                                               * stays until it expires */
        fi
     od;
     me = 0
  od
}

/* Time: at any moment a held lease may pass its expiresAt (the holder is
 * paused or dead, or simply slower than its renewals). */
active proctype clock()
{
end:
  do
  :: d_step { leaseOwner != 0 && !leaseExpired -> leaseExpired = true }
  od
}

/* Settlement ingestion (outside this job): a settlement may arrive at any time
 * (PutItem Settlements), and ingestion may later flip an AUTHORISED
 * authorisation to SETTLED (version + 1).  Both paths exist so that both the
 * Settlements ConditionCheck and the version/state condition are exercised. */
active proctype ingestion()
{
end:
  do
  :: d_step { !settled[0] -> settled[0] = true }
  :: d_step { !settled[1] -> settled[1] = true }
  :: d_step { settled[0] && auth[0].state == AUTHORISED ->
                auth[0].state = SETTLED; auth[0].version = auth[0].version + 1 }
  :: d_step { settled[1] && auth[1].state == AUTHORISED ->
                auth[1].state = SETTLED; auth[1].version = auth[1].version + 1 }
  od
}
