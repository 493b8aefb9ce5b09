package dev.baton.tck;

import java.util.Arrays;
import java.util.Optional;

/**
 * The property groups of the kit, one per nested class of {@link LockBackendContract} (the enum's
 * name is the nested class's, in upper case with underscores). A {@link KitVariant} names the groups
 * it runs with these.
 */
public enum KitGroup {
    /** {@code MutualExclusion}: threads, clients and processes never overlap. */
    MUTUAL_EXCLUSION(MutualExclusionProperty.class),
    /** {@code Reentrancy}: reentrant acquisition and release. */
    REENTRANCY(ReentrancyProperty.class),
    /** {@code Timeouts}: bounded waits end in time and leave nothing behind. */
    TIMEOUTS(TimeoutProperty.class),
    /** {@code Interrupts}: interrupted waiters return promptly. */
    INTERRUPTS(InterruptProperty.class),
    /** {@code Ownership}: only the holder releases; a killed holder's lock comes free. */
    OWNERSHIP(OwnershipProperty.class),
    /** {@code Renewal}: renewal, expiry without it, fencing tokens. */
    RENEWAL(RenewalProperty.class),
    /** {@code Extend}: extending a lease without auto-renewal. */
    EXTEND(ExtendProperty.class),
    /** {@code LossDetection}: loss and unreachable servers reported in time (through a proxy). */
    LOSS_DETECTION(LossDetectionProperty.class),
    /** {@code RenewalAtScale}: many leases renewed through a slow, paused or hung link. */
    RENEWAL_AT_SCALE(RenewalAtScaleProperty.class),
    /** {@code Semaphores}: semaphores, or their clear refusal. */
    SEMAPHORES(SemaphoreProperty.class),
    /** {@code Fairness}: no client starves. */
    FAIRNESS(FairnessProperty.class),
    /** {@code MultiLocks}: multi-locks. */
    MULTI_LOCKS(MultiLockProperty.class),
    /** {@code ReadWrite}: read/write locks, or their clear refusal. */
    READ_WRITE(ReadWriteProperty.class),
    /** {@code BadInput}: bad names and options are refused clearly. */
    BAD_INPUT(BadInputProperty.class),
    /** {@code LeaderElection}: leader election across processes. */
    LEADER_ELECTION(LeadershipProperty.class),
    /** {@code StoppedHolder}: a holder and leader stopped until others took over say so when they resume. */
    STOPPED_HOLDER(StoppedHolderProperty.class),
    /** {@code Operators}: holder descriptions, listing and forced release. */
    OPERATORS(OperatorProperty.class),
    /** {@code Async}: the asynchronous API: exclusion, cancellation, order and loss. */
    ASYNC(AsyncProperty.class),
    /** {@code Closing}: closing a client releases its leases and ends its threads. */
    CLOSING(ClosingProperty.class);

    private final Class<?> property;

    KitGroup(Class<?> property) {
        this.property = property;
    }

    /** The group whose property class {@code type} (a nested class of the contract) extends, if any. */
    static Optional<KitGroup> of(Class<?> type) {
        return Arrays.stream(values())
                .filter(group -> group.property.isAssignableFrom(type))
                .findFirst();
    }
}
