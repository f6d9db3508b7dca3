/*
 * lease.pml -- the lease with an epoch fencing token and the fenced protected
 * write of docs/design.md section 3 (lease) and section 4 (protected write), checked
 * against the invariants of its section 9.  It mirrors LeaseStore and FencedWriter
 * condition by condition; the expressions quoted in the comments are the
 * constants in LeaseStore and ProtectedWriteItems (the items FencedWriter sends).
 *
 * One model, variants chosen at compile time, so every variant shares every
 * line except the one it changes:
 *
 *   (default) / -DFENCED   item 0 of the TransactWriteItems is the ConditionCheck
 *                          Leases: #owner = :owner AND epoch = :epoch.
 *                          Expected: no assertion violation, no invalid end state.
 *   -DUNFENCED             the lease check is dropped (the harness's
 *                          UnfencedControl); the version, state,
 *                          settlement and outbox conditions stay.
 *                          Expected: I1 violated (a stale worker commits after a takeover).
 *   -DHIGHEST_EPOCH_SEEN   the alternative from the incident review: each
 *                          authorisation keeps the highest epoch that touched it
 *                          (stamped when a leader reads it and when it writes it),
 *                          and the write needs lastEpoch <= :epoch instead of the
 *                          lease check.  Expected: I1 violated on an authorisation
 *                          the new leader has not touched yet.
 *
 * Sanity mutants (fenced, one other guard removed) show that the remaining
 * assertions are not vacuous:
 *   -DNO_SETTLEMENT_CHECK  item 2 (Settlements attribute_not_exists) dropped: I3 violated.
 *   -DUNGUARDED_COMMAND    item 1's version/state condition and item 3's
 *                          attribute_not_exists(operationId) dropped: I2 violated.
 *   -DDELETE_ON_RELEASE    ReleaseLease deletes the item, so the counter restarts: I5 violated.
 *
 * A second variant that must verify:
 *   -DREBUMP_ON_RETRY      acquire as the original design contract worded it
 *                          (docs/design.md section 3), without the
 *                          "#owner <> :me" clause: the retry of an attempt whose own
 *                          lease expired takes it over again with a second bump.
 *                          Expected: still no violation (the code's form only saves
 *                          the bump).
 *
 * Bounds: 3 workers, 2 authorisations, at most MAXT (3) takeovers -- successful
 * acquires, each bumping the epoch -- in a run (-DMAXT=n changes it); each
 * authorisation is amended at most once while AUTHORISED.
 *
 * Time is not modelled as numbers.  DynamoDB compares expiresAt with a
 * caller-supplied :now, callers' clocks differ, and any worker can be paused
 * for any time (GC, a frozen Lambda), so "the lease has expired" is a flag the
 * clock process may set at any moment while the lease is held.
 *
 * Atomicity: each d_step / atomic below is ONE DynamoDB request -- a Query, an
 * UpdateItem with a ConditionExpression, or one TransactWriteItems.  DynamoDB
 * evaluates a request's conditions and applies its writes as one serializable
 * step, so each request is one indivisible transition here.  Between two
 * requests of a worker anything may happen: that gap is the pause, and it
 * exists at every point between a read and the write that depends on it.
 * TransactionConflict and throttling only delay a request (FencedWriter retries
 * them), which the interleavings already cover.  A lost response to a committed
 * transaction needs no transition of its own either: the retry carries the same
 * observed version, so its version condition (and the outbox put-if-absent)
 * fails, a cancelled transaction writes nothing, and FencedWriter recognises
 * the command carrying its own owner and epoch as its earlier commit.
 */

#define NW 3                /* workers: concurrent copies of the job          */
#define NA 2                /* authorisations                                 */
#ifndef MAXT
#define MAXT 3              /* takeovers (successful acquires) in one run     */
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

/* Owner ids.  The design's owner id is unique per acquisition attempt
 * ({executionName}/{uuid}, minted by the MintOwnerId Pass state and reused by
 * every retry of AcquireLease).  The model names an attempt by its worker and
 * by the epoch its takeover committed: that pair is unique, because epochs only
 * grow.  The lease stores the worker (#owner) beside the epoch it already
 * holds, so "#owner = :me" for the attempt that took epoch `mine` is exactly
 * OWNED_BY(mine); an attempt that has not taken over yet (mine = 0) matches no
 * owner, as a fresh uuid would not.  This keeps the ids out of the state space
 * without merging any two attempts. */
#define WORKER_ID (_pid + 1)
#define OWNED_BY(e) (leaseOwner == WORKER_ID && leaseEpoch == (e) && (e) != 0)

/* ---- the tables --------------------------------------------------------- */

/* Leases[leaseName] */
byte leaseOwner = 0;        /* #owner; 0 = attribute absent (free)             */
byte leaseEpoch = 0;        /* epoch; 0 = attribute absent (if_not_exists -> 0) */
bool leaseExpired = false;  /* expiresAt <= the :now of a later request        */

/* Authorisations[id] */
typedef Auth {
  byte state;               /* AUTHORISED, RELEASE_REQUESTED, SETTLED          */
  byte version;
#ifdef HIGHEST_EPOCH_SEEN
  byte lastEpoch;           /* highest epoch that touched the item             */
#endif
};
Auth auth[NA];
bool settled[NA];           /* Settlements[id] exists                          */
bool outbox[NA];            /* ReleaseCommands[release-hold:{id}] exists       */

/* ---- ghost state (not in DynamoDB; only the assertions read it) --------- */

byte takeovers = 0;         /* takeovers committed so far (the bound)          */
byte epochHighWater = 0;    /* highest epoch the lease ever held = the epoch of
                             * the latest committed takeover                   */
byte issued[NA];            /* release commands committed per authorisation   */

/* Scratch for the assertions, so that a violation names its invariant.  Each
 * is set, asserted and cleared inside one atomic step, so between steps it is
 * always false and adds no states. */
bool I1_no_stale_commit;
bool I2_one_command_per_authorisation;
bool I3_not_settled_at_decision;
bool I5_epoch_never_decreases;

/* I5: checked at every write of the lease item (epoch only changes there). */
#define CHECK_I5 \
  I5_epoch_never_decreases = (leaseEpoch >= epochHighWater); \
  assert(I5_epoch_never_decreases); \
  I5_epoch_never_decreases = false; \
  epochHighWater = leaseEpoch

/* AcquireLease's condition.  LeaseStore.ACQUIRE_CONDITION:
 *   attribute_not_exists(#owner) OR (expiresAt <= :now AND #owner <> :me) */
#ifdef REBUMP_ON_RETRY
#define TAKEOVER_ALLOWED (leaseOwner == 0 || leaseExpired)
#else
#define TAKEOVER_ALLOWED (leaseOwner == 0 || (leaseExpired && !OWNED_BY(mine)))
#endif

/* Item 0 of the protected write: the fence, per variant. */
#if defined(UNFENCED)
#define FENCE_OK (true)
#elif defined(HIGHEST_EPOCH_SEEN)
#define FENCE_OK (auth[a].lastEpoch <= myEpoch)
#else
#define FENCE_OK OWNED_BY(myEpoch)
#endif

/* Item 1: version = :observed AND #state = :authorised */
#ifdef UNGUARDED_COMMAND
#define STILL_AS_OBSERVED (true)
#define NEW_COMMAND (true)
#else
#define STILL_AS_OBSERVED (auth[a].version == obs && auth[a].state == AUTHORISED)
/* Item 3: attribute_not_exists(operationId) */
#define NEW_COMMAND (!outbox[a])
#endif

/* Item 2: attribute_not_exists(authorisationId) on Settlements[id] */
#ifdef NO_SETTLEMENT_CHECK
#define NOT_SETTLED (true)
#else
#define NOT_SETTLED (!settled[a])
#endif

/* ---- a worker: AcquireLease, then ReconcilePage, then ReleaseLease ------ */

active [NW] proctype worker()
{
  byte mine = 0;      /* epoch this attempt's takeover committed; 0 = none:
                       * with WORKER_ID, this attempt's owner id             */
  byte myEpoch = 0;   /* fencing token the worker holds; 0 = not leader      */
  byte a = 0;         /* authorisation in hand                               */
  byte obs = 0;       /* version the read observed                           */

  do
  :: takeovers >= MAXT -> break        /* the bound: no more runs start        */
  :: takeovers < MAXT ->
     /* MintOwnerId: a fresh attempt (mine = 0 already). */

     /* AcquireLease: UpdateItem Leases with condition
      *   attribute_not_exists(#owner) OR (expiresAt <= :now AND #owner <> :me)
      * SET #owner = :me, epoch = if_not_exists(epoch, :zero) + :one, expiresAt,
      * ReturnValues ALL_NEW.  On ConditionalCheckFailed, ALL_OLD showing
      * #owner = :me is our own attempt whose response was lost: return the
      * epoch already held, no bump (even if it has expired meanwhile: nobody
      * took it over, so it is still ours).  Anyone else: LeaseHeld. */
     do
     :: d_step {
          if
          :: TAKEOVER_ALLOWED ->
               if
               :: takeovers < MAXT ->
                    leaseOwner = WORKER_ID;
                    leaseEpoch = leaseEpoch + 1;
                    leaseExpired = false;
                    takeovers++;
                    CHECK_I5;
                    mine = leaseEpoch
               :: else ->
                    mine = 0              /* the bound: this run ends here    */
               fi
          :: else ->
               if
               :: OWNED_BY(mine) -> skip  /* our lost response: epoch held   */
               :: else -> mine = 0        /* LeaseHeld (retried, then Fail)  */
               fi
          fi;
          myEpoch = mine
        };
        if
        :: break                          /* the response arrived            */
        :: myEpoch != 0 ->
             /* The response was lost (or the task timed out after the write):
              * Step Functions retries the task with the same owner id. */
             myEpoch = 0
        fi
     od;

     /* ReconcilePage loop: this worker believes it leads with epoch myEpoch. */
     do
     :: myEpoch == 0 -> break
     :: myEpoch != 0 ->
        /* Read one candidate: Query pending-by-age, a sparse GSI that is
         * eventually consistent.  It lists an item that is AUTHORISED now, with
         * its current version, or -- lagging -- an older image of an item, all
         * of whose earlier versions were AUTHORISED.  (Listing nothing is the
         * same as the leader moving on, below.)  Nothing read here is trusted:
         * the transaction re-checks everything. */
        atomic {
          if :: a = 0 :: a = 1 fi;
          if
          :: auth[a].state == AUTHORISED -> obs = auth[a].version
          :: auth[a].version > 0 -> obs = 0
          :: auth[a].version > 1 -> obs = 1
          fi
        };
#ifdef HIGHEST_EPOCH_SEEN
        /* The alternative stamps what it reads: UpdateItem Authorisations
         * SET lastEpoch = :epoch, condition lastEpoch <= :epoch.  A higher
         * stamp means a newer leader touched it: stop (Fenced). */
        d_step {
          if
          :: auth[a].lastEpoch <= myEpoch -> auth[a].lastEpoch = myEpoch
          :: else -> myEpoch = 0; a = 0; obs = 0
          fi
        };
        if
        :: myEpoch == 0 -> break
        :: else -> skip
        fi;
#endif
        /* <-- the pause: the lease may expire here, another worker may take
         *     over, bump the epoch and write; a settlement may arrive. */

        /* The protected write: ONE TransactWriteItems
         *  #0 ConditionCheck Leases       #owner = :owner AND epoch = :epoch
         *  #1 Update Authorisations[id]   version = :observed AND #state = :authorised
         *                                 SET #state = RELEASE_REQUESTED, version + 1
         *  #2 ConditionCheck Settlements  attribute_not_exists(authorisationId)
         *  #3 Put ReleaseCommands[op]     attribute_not_exists(operationId)
         * Every condition holds and every write applies, or nothing does. */
        d_step {
          if
          :: FENCE_OK && STILL_AS_OBSERVED && NOT_SETTLED && NEW_COMMAND ->
               /* I1 no stale commit: no write carrying epoch e commits after
                * a takeover to an epoch > e committed. */
               I1_no_stale_commit = (epochHighWater <= myEpoch);
               if
               :: !I1_no_stale_commit ->
#ifdef HIGHEST_EPOCH_SEEN
                    printf("I1 violated: worker %d committed authorisation %d with epoch %d after the takeover to epoch %d; lastEpoch of authorisation %d was %d\n",
                           _pid, a, myEpoch, epochHighWater, a, auth[a].lastEpoch)
#else
                    printf("I1 violated: worker %d committed authorisation %d with epoch %d after the takeover to epoch %d\n",
                           _pid, a, myEpoch, epochHighWater)
#endif
               :: else -> skip
               fi;
               assert(I1_no_stale_commit);
               I1_no_stale_commit = false;
               /* I3 no release of a settled authorisation at decision time. */
               I3_not_settled_at_decision = !settled[a];
               assert(I3_not_settled_at_decision);
               I3_not_settled_at_decision = false;
               /* At most one release command per authorisation: the outbox
                * side of I2 (one operation id, issued once). */
               issued[a]++;
               I2_one_command_per_authorisation = (issued[a] <= 1);
               assert(I2_one_command_per_authorisation);
               I2_one_command_per_authorisation = false;
               auth[a].state = RELEASE_REQUESTED;
               auth[a].version = auth[a].version + 1;
#ifdef HIGHEST_EPOCH_SEEN
               auth[a].lastEpoch = myEpoch;
#endif
               outbox[a] = true
          :: else ->
               /* Cancelled, classified from CancellationReasons by index, the
                * fence first: Fenced stops the worker (Catch -> Superseded);
                * Stale / Settled / AlreadyCommanded leave it deciding. */
               if
               :: !(FENCE_OK) -> myEpoch = 0
               :: else -> skip
               fi
          fi;
          a = 0; obs = 0
        };

        /* Between candidates the leader carries on, renews, finishes, or dies. */
        if
        :: skip
        :: myEpoch != 0 ->
           /* Renew: condition #owner = :me AND epoch = :epoch, SET expiresAt;
            * the epoch is untouched.  Failure is LeaseLost -> Superseded. */
           d_step {
             if
             :: OWNED_BY(myEpoch) ->
                  leaseExpired = false;
                  CHECK_I5
             :: else -> myEpoch = 0
             fi
           }
        :: myEpoch != 0 ->
           /* ReleaseLease: condition #owner = :me AND epoch = :epoch,
            * REMOVE #owner SET expiresAt = :now.  The epoch stays and the item
            * is never deleted: a new counter would restart at 1 and revive old
            * tokens. */
           d_step {
             if
             :: OWNED_BY(myEpoch) ->
                  leaseOwner = 0;
                  leaseExpired = true;
#ifdef DELETE_ON_RELEASE
                  leaseEpoch = 0;
#endif
                  CHECK_I5
             :: else -> skip              /* LeaseLost: nothing to release    */
             fi;
             myEpoch = 0
           }
        :: myEpoch != 0 ->
           myEpoch = 0                    /* crash or timeout: the lease stays
                                           * until it expires */
        fi
     od;
     mine = 0
  od
}

/* Time: at any moment a held lease may be past its expiresAt for some caller
 * (its holder is paused or dead, renews late, or the caller's clock is ahead). */
active proctype clock()
{
end:
  do
  :: d_step { leaseOwner != 0 && !leaseExpired -> leaseExpired = true }
  od
}

/* Settlement ingestion and the card network, outside this job: a settlement
 * may arrive at any time (PutItem Settlements); ingestion may later flip an
 * AUTHORISED authorisation to SETTLED; an AUTHORISED authorisation may be
 * amended once (e.g. an incremental authorisation), which bumps its version
 * and leaves older images in the index.  Together they exercise the
 * Settlements ConditionCheck and both halves of the version/state condition. */
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
  :: d_step { auth[0].state == AUTHORISED && auth[0].version == 0 -> auth[0].version = 1 }
  :: d_step { auth[1].state == AUTHORISED && auth[1].version == 0 -> auth[1].version = 1 }
  od
}
