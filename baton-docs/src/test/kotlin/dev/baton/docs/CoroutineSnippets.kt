package dev.baton.docs

import dev.baton.DistributedLock
import dev.baton.Lease
import dev.baton.LockClient
import java.time.Duration
import java.util.function.BiFunction
import kotlin.coroutines.cancellation.CancellationException
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.future.await
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeoutOrNull

// The Kotlin snippets of docs/async.md; AsyncSnippetsOnH2Test runs them on H2 through the blocking
// functions at the end.

// snippet:start coroutines
suspend fun DistributedLock.acquireSuspending(timeout: Duration): Lease {
    val acquisition = acquireAsync(timeout) // returns at once: the coroutine suspends, no thread waits
    try {
        return acquisition.await() // cancelling the coroutine cancels the acquisition
    } catch (e: CancellationException) {
        acquisition.thenAccept { it.releaseAsync() } // granted just as the coroutine was cancelled
        throw e
    }
}

suspend fun <T> DistributedLock.withLease(timeout: Duration, work: suspend (Lease) -> T): T {
    val lease = acquireSuspending(timeout)
    try {
        return work(lease)
    } finally {
        withContext(NonCancellable) { lease.releaseAsync().await() }
    }
}
// snippet:end coroutines

data class CoroutineReceipt(val invoiceId: Long, val fencingToken: Long)

interface SuspendingPayments {
    suspend fun charge(invoiceId: Long, fencingToken: Long): CoroutineReceipt
}

suspend fun payInvoice(client: LockClient, payments: SuspendingPayments, invoiceId: Long): CoroutineReceipt =
    // snippet:start coroutines-use
    client.lock("invoice-$invoiceId").withLease(Duration.ofSeconds(5)) { lease ->
        payments.charge(invoiceId, lease.fencingToken()) // a suspending call, given the token
    }
    // snippet:end coroutines-use

/** [payInvoice] for a Java test, with [charge] as the payment service. */
fun payInvoiceBlocking(
    client: LockClient,
    invoiceId: Long,
    charge: BiFunction<Long, Long, CoroutineReceipt>,
): CoroutineReceipt {
    val payments = object : SuspendingPayments {
        override suspend fun charge(invoiceId: Long, fencingToken: Long) = charge.apply(invoiceId, fencingToken)
    }
    return runBlocking { payInvoice(client, payments, invoiceId) }
}

/** Waits for [name] in a coroutine cancelled after [waitMillis]; true if it was cancelled while waiting. */
fun cancelledWhileWaiting(client: LockClient, name: String, waitMillis: Long): Boolean = runBlocking {
    withTimeoutOrNull(waitMillis) { client.lock(name).acquireSuspending(Duration.ofMinutes(1)) } == null
}
