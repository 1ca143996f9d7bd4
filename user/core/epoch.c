// SPDX-License-Identifier: GPL-2.0-only
/*
 * Epochs: the sender's next ISN and the receiver's admission (epoch.h).
 */
#include "epoch.h"

uint32_t eqt_epoch_next(uint32_t last_seq, uint32_t floor)
{
	/* Our own last seq lies past the receiver's floor by what was in
	 * flight (far less than EQT_EPOCH_GAP: the new epoch is past it
	 * too), or anywhere if this agent restarted and numbered from a
	 * random ISN the receiver never knew: the floor wins. */
	return eqt_epoch_after(floor ? floor : last_seq);
}

/* Whether a SYN's seq lies where the peer's next epoch starts: its ISN is
 * eqt_epoch_after() of the peer's last seq, which lies at most the window
 * past our next in order, and its SYN packets run on from the ISN by what
 * a first round trip can send, within the window again. */
static bool epoch_expected(uint32_t expected, uint32_t window, uint32_t seq)
{
	return seq - eqt_epoch_after(expected) < 2 * window + (1u << EQT_EPOCH_SHIFT);
}

enum eqt_admit eqt_rx_admit(bool est, uint32_t isn, uint32_t expected, uint32_t window,
			    uint32_t seq, bool syn)
{
	/* A SYN packet is the current epoch's while its seq lies in the
	 * epoch's SYN window: a first-RTT burst may be longer than the 1024
	 * seqs the ISN's zero bits span, and the epoch of seq alone would
	 * take its later packets for a new epoch. */
	bool cur = est && seq - isn < EQT_EPOCH_SYN_SEQS;

	if (syn && !cur) {
		if (!est)
			return EQT_ADMIT_NEW_EPOCH;	/* zero-RTT setup */
		if (eqt_seq_before(seq, expected))
			return EQT_REFUSE_OLD_EPOCH;
		/* Past the window and past what arrived: a new epoch, if it
		 * starts where the peer's next must; else not the peer's, or
		 * a peer that restarted with a number of its own. */
		return epoch_expected(expected, window, seq) ? EQT_ADMIT_NEW_EPOCH
							     : EQT_REFUSE_BAD_EPOCH;
	}
	if (!est)
		return EQT_ADMIT_NO_STATE;
	if (seq - expected >= window && expected - seq >= window)
		return EQT_REFUSE_WINDOW;
	return EQT_ADMIT;
}

enum eqt_tx_admit eqt_tx_admit(uint32_t isn, uint32_t hi, uint32_t cum_ack, uint32_t slack,
			       bool rst, uint32_t ack)
{
	if (rst)
		return eqt_seq_before(ack, isn) || eqt_seq_before(hi, ack) ? EQT_TX_BAD_RST
									 : EQT_TX_ADMIT;
	if (eqt_seq_before(ack, isn - 1))
		return isn - 1 - ack <= EQT_TX_OLD_SPAN ? EQT_TX_OLD_EPOCH : EQT_TX_BAD_ACK;
	if (eqt_seq_before(hi, ack) || eqt_seq_before(ack, cum_ack - slack))
		return EQT_TX_BAD_ACK;
	return EQT_TX_ADMIT;
}
