-- SPDX-License-Identifier: GPL-2.0-only
--
-- Wireshark / tshark dissector for the edgeq tunnel (UDP port 7446).
--
-- The wire format is defined in include/edgeq/wire.h and described in
-- docs/wire.md; this file follows wire.h field by field.  Whatever in the
-- edgeq header or the inner packet makes the receiver (bpf/xdp_ingress.bpf.c)
-- drop a packet is flagged as an expert error in the Malformed group, and
-- the message names the eq_stats counter it would bump, so
--   tshark -Y '_ws.expert.severity >= error'   or   -Y '_ws.malformed'
-- finds those packets.  Outer IP problems are left to Wireshark's own
-- dissectors.
--
-- Usage (see docs/wire.md, "Reading captures"):
--   tshark -X lua_script:tools/wireshark/edgeq.lua \
--          -o udp.ignore_ipv6_zero_checksum:TRUE -r capture.pcap
-- Another port:  -o edgeq.port:NNNN   (or Edit > Preferences > Protocols > EDGEQ)

local EQ_WIRE_VERSION = 1
local EQ_DEFAULT_PORT = 7446
local EQ_HDR_LEN      = 20	-- fixed header, bytes
local EQ_HDR_WORDS    = 5
local EQ_PROTO_IPV4   = 4
local EQ_PROTO_IPV6   = 41
local EQ_SPORT_BASE   = 0xc000
local EQ_SPORT_MASK   = 0x3fff

local T_DATA, T_TRIMMED, T_PULL, T_ACK, T_NACK, T_RTS, T_RST = 0, 1, 2, 3, 4, 5, 6
local T_MAX = 6

local type_names = {
	[T_DATA] = "DATA", [T_TRIMMED] = "TRIMMED", [T_PULL] = "PULL", [T_ACK] = "ACK",
	[T_NACK] = "NACK", [T_RTS] = "RTS", [T_RST] = "RST",
}
-- Types whose body is seq / pull_target / frame_len (RTS: limit); the others use
-- ack / pull_no / busy_ns (docs/wire.md 2.4, 2.5).
local data_body = { [T_DATA] = true, [T_TRIMMED] = true, [T_RTS] = true }

local F_SYN, F_TRIMMED, F_CSN, F_ECE, F_RTX, F_FAST, F_CUM, F_LOST =
	0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80
local flag_names = { { F_SYN, "SYN" }, { F_TRIMMED, "TRIMMED" }, { F_CSN, "CSN" },
		     { F_ECE, "ECE" }, { F_RTX, "RTX" }, { F_FAST, "FAST" }, { F_CUM, "CUM" },
		     { F_LOST, "LOST" } }

local proto_names = { [0] = "none", [EQ_PROTO_IPV4] = "IPv4", [EQ_PROTO_IPV6] = "IPv6" }

local OPT_PAD, OPT_TSTAMP, OPT_CREDIT, OPT_SRC, OPT_QID, OPT_SEG, OPT_AUTH, OPT_PATH =
	0, 1, 2, 3, 4, 5, 6, 7
local opt_names = { [OPT_PAD] = "PAD", [OPT_TSTAMP] = "TSTAMP", [OPT_CREDIT] = "CREDIT",
		    [OPT_SRC] = "SRC", [OPT_QID] = "QID", [OPT_SEG] = "SEG", [OPT_AUTH] = "AUTH",
		    [OPT_PATH] = "PATH" }
-- Whole-option length (kind + len + value) each known kind needs.
local opt_len = { [OPT_TSTAMP] = 10, [OPT_CREDIT] = 6, [OPT_SRC] = 10, [OPT_QID] = 4,
		  [OPT_SEG] = 8, [OPT_AUTH] = 12, [OPT_PATH] = 4 }
local EQ_SEG_MAX = 1024	-- segments one SEG option may number (wire.h)

local edgeq = Proto("edgeq", "edgeq tunnel")

local pf = {
	version     = ProtoField.uint8("edgeq.version", "Version", base.DEC, nil, 0xf0),
	type        = ProtoField.uint8("edgeq.type", "Type", base.DEC, type_names, 0x0f),
	flags       = ProtoField.uint8("edgeq.flags", "Flags", base.HEX),
	f_syn       = ProtoField.bool("edgeq.flags.syn", "SYN", 8, nil, F_SYN,
				      "Zero-RTT tunnel setup: set until the peer answers"),
	f_trimmed   = ProtoField.bool("edgeq.flags.trimmed", "TRIMMED", 8, nil, F_TRIMMED,
				      "Set by a trimming switch together with type TRIMMED"),
	f_csn       = ProtoField.bool("edgeq.flags.csn", "CSN", 8, nil, F_CSN,
				      "SIRD: sender is congested"),
	f_ece       = ProtoField.bool("edgeq.flags.ece", "ECE", 8, nil, F_ECE,
				      "Control packet echoes a CE mark"),
	f_rtx       = ProtoField.bool("edgeq.flags.rtx", "RTX", 8, nil, F_RTX,
				      "DATA is a retransmission"),
	f_held      = ProtoField.bool("edgeq.flags.held", "HELD", 8, nil, F_RTX,
				      "ACK, PULL: the ack was held by the receiver's ACK delay: "
				      .. "no RTT sample"),
	f_fast      = ProtoField.bool("edgeq.flags.fast", "FAST", 8, nil, F_FAST,
				      "DATA sent by the sender's TC on credit its agent lent it"),
	f_cum       = ProtoField.bool("edgeq.flags.cum", "CUM", 8, nil, F_CUM,
				      "ACK: cumulative, every seq before ack arrived"),
	f_unsched   = ProtoField.bool("edgeq.flags.unsched", "UNSCHED", 8, nil, F_CUM,
				      "DATA (SIRD): sent without credit, a new burst's first bytes"),
	f_lost      = ProtoField.bool("edgeq.flags.lost", "LOST", 8, nil, F_LOST,
				      "NACK: missing while later packets came (lost on the way): "
				      .. "the sender's credit for it is its own again"),
	hdr_len     = ProtoField.uint8("edgeq.hdr_len", "Header length (words)", base.DEC, nil, nil,
				       "Whole edgeq header, fixed part and options, in 4-byte words"),
	hdr_bytes   = ProtoField.uint16("edgeq.hdr_len.bytes", "Header length (bytes)", base.DEC),
	proto       = ProtoField.uint8("edgeq.proto", "Inner protocol", base.DEC, proto_names),
	sender_id   = ProtoField.uint16("edgeq.sender_id", "Sender id", base.DEC_HEX),
	path_id     = ProtoField.uint16("edgeq.path_id", "Path id", base.DEC_HEX),
	seq         = ProtoField.uint32("edgeq.seq", "Sequence number", base.DEC),
	seq_rx      = ProtoField.uint32("edgeq.seq.rx", "Sequence number at the receiver", base.DEC,
				       nil, nil, "seq + outer IPv4 ID or SEG option's segment index (GSO segments), as xdp_ingress counts it"),
	pull_target = ProtoField.uint32("edgeq.pull_target", "Pull target", base.DEC),
	frame_len   = ProtoField.uint32("edgeq.frame_len", "Frame length", base.DEC, nil, nil,
				       "the whole frame as the agent sent it; 0: not stated (no agent, or a bare TCP ACK)"),
	limit       = ProtoField.uint32("edgeq.limit", "Limit (pull number)", base.DEC, nil, nil,
				       "up to which the sender's credit may be out of its hands; 0: not given"),
	ack         = ProtoField.uint32("edgeq.ack", "Ack", base.DEC),
	pull_no     = ProtoField.uint32("edgeq.pull_no", "Pull number", base.DEC),
	busy_ns     = ProtoField.uint32("edgeq.busy_ns", "Busy time (ns)", base.DEC),
	body        = ProtoField.bytes("edgeq.body", "Body (unknown type)"),
	options     = ProtoField.bytes("edgeq.options", "Options"),
	opt         = ProtoField.none("edgeq.opt", "Option"),
	opt_kind    = ProtoField.uint8("edgeq.opt.kind", "Kind", base.DEC, opt_names),
	opt_len     = ProtoField.uint8("edgeq.opt.len", "Length", base.DEC),
	opt_value   = ProtoField.bytes("edgeq.opt.value", "Value"),
	opt_tx      = ProtoField.uint32("edgeq.opt.tstamp.tx", "TX timestamp", base.DEC),
	opt_echo    = ProtoField.uint32("edgeq.opt.tstamp.echo", "Echoed timestamp", base.DEC),
	opt_credit  = ProtoField.uint32("edgeq.opt.credit", "Credit (bytes)", base.DEC),
	opt_qbytes  = ProtoField.uint32("edgeq.opt.src.queue_bytes", "Queue (bytes)", base.DEC),
	opt_rate    = ProtoField.uint32("edgeq.opt.src.rate_mbps", "Link rate (Mb/s)", base.DEC),
	opt_qid     = ProtoField.uint16("edgeq.opt.qid", "Upstream queue id", base.DEC),
	opt_path    = ProtoField.uint16("edgeq.opt.path", "Path echoed (the DATA's path_id)", base.DEC),
	opt_seg_mss = ProtoField.uint16("edgeq.opt.seg.size", "Segment size (inner TCP payload)", base.DEC),
	opt_seg_seq = ProtoField.uint32("edgeq.opt.seg.tcp_seq0", "Inner TCP seq of segment 0", base.DEC),
	opt_key_id  = ProtoField.uint8("edgeq.opt.auth.key_id", "Key id", base.DEC),
	opt_tag     = ProtoField.bytes("edgeq.opt.auth.tag", "Tag (SipHash-2-4; checking it needs the key)"),
	payload     = ProtoField.bytes("edgeq.payload", "Payload"),
}
edgeq.fields = pf

-- Expert infos.  Errors are what the receiver drops; the text names the
-- eq_stats counter.  Warnings and notes are legal but unusual.
local PM, PP = expert.group.MALFORMED, expert.group.PROTOCOL
local ERR, WARN, NOTE = expert.severity.ERROR, expert.severity.WARN, expert.severity.NOTE
local ex = {
	short       = ProtoExpert.new("edgeq.short", "Truncated edgeq header", PM, ERR),
	version     = ProtoExpert.new("edgeq.bad_version", "Unknown edgeq version", PM, ERR),
	type        = ProtoExpert.new("edgeq.bad_type", "Unknown edgeq type", PM, ERR),
	hdr_len     = ProtoExpert.new("edgeq.bad_hdr_len", "Bad edgeq hdr_len", PM, ERR),
	opt         = ProtoExpert.new("edgeq.bad_option", "Bad edgeq option", PM, ERR),
	inner_proto = ProtoExpert.new("edgeq.bad_inner_proto", "Bad inner protocol", PM, ERR),
	inner_len   = ProtoExpert.new("edgeq.bad_inner_len", "Inner length disagrees", PM, ERR),
	opt_long    = ProtoExpert.new("edgeq.option_long", "Option longer than its kind needs", PP, NOTE),
	opt_unknown = ProtoExpert.new("edgeq.option_unknown", "Unknown option kind", PP, NOTE),
	trim_flag   = ProtoExpert.new("edgeq.trim_mismatch", "TRIMMED flag and type disagree", PP, WARN),
	ctl_proto   = ProtoExpert.new("edgeq.ctl_proto", "proto is not 0 on a packet that carries no inner packet", PP, WARN),
	extra       = ProtoExpert.new("edgeq.unexpected_payload", "Payload after a header-only packet", PP, WARN),
	sport       = ProtoExpert.new("edgeq.sport_mismatch", "UDP source port does not carry path_id", PP, NOTE),
	cut         = ProtoExpert.new("edgeq.capture_cut", "Capture cut short by its snap length",
				      expert.group.UNDECODED, NOTE),
}
edgeq.experts = { ex.short, ex.version, ex.type, ex.hdr_len, ex.opt, ex.inner_proto,
		  ex.inner_len, ex.opt_long, ex.opt_unknown, ex.trim_flag,
		  ex.ctl_proto, ex.extra, ex.sport, ex.cut }

edgeq.prefs.port = Pref.uint("UDP port", EQ_DEFAULT_PORT,
			     "UDP destination port of the edgeq tunnel (edgeq config: port)")

-- Outer header fields, for the GSO sequence number (seq + outer IPv4 ID).
local f_ip_id    = Field.new("ip.id")
local f_ip_src   = Field.new("ip.src")
local f_ipv6_src = Field.new("ipv6.src")

local ip_dissector   = Dissector.get("ip")
local ipv6_dissector = Dissector.get("ipv6")
local data_dissector = Dissector.get("data")

local udp_table = DissectorTable.get("udp.port")
local registered_port = nil

local function register_port()
	local port = edgeq.prefs.port
	if registered_port == port then return end
	if registered_port then udp_table:remove(registered_port, edgeq) end
	if port ~= 0 then udp_table:add(port, edgeq) end
	registered_port = port
end

function edgeq.prefs_changed()
	register_port()
end

-- The IPv4 ID of the IP header right in front of our UDP header, or nil
-- when that header is IPv6 (which has no ID).  Chooses, among the IP
-- headers dissected so far, the last one that starts before us.
local function outer_ipv4_id(tvb)
	local here = tvb:offset()
	local best_off, best_id = -1, nil
	local ids, srcs = { f_ip_id() }, { f_ip_src() }
	for i, fi in ipairs(srcs) do
		-- ip.src sits 12 bytes into its header, ip.id 4 bytes.
		if fi.offset < here and fi.offset > best_off and ids[i] then
			best_off, best_id = fi.offset, ids[i].value
		end
	end
	for _, fi in ipairs({ f_ipv6_src() }) do
		if fi.offset < here and fi.offset > best_off then
			best_off, best_id = fi.offset, nil
		end
	end
	return best_id
end

-- 0x10 is RTX on DATA and HELD on control packets, 0x40 UNSCHED on DATA
-- and CUM on control packets (docs/wire.md 2.3).
local function flags_string(flags, data)
	local t = {}
	for _, f in ipairs(flag_names) do
		if bit.band(flags, f[1]) ~= 0 then
			t[#t + 1] = (f[1] == F_RTX and not data) and "HELD" or
				    (f[1] == F_CUM and data) and "UNSCHED" or f[2]
		end
	end
	return table.concat(t, ",")
end

-- Bytes [off, off+len) present in the capture?  A capture cut by its snap
-- length is not a malformed packet: dissection stops with a note.
local function captured(tvb, off, len)
	return off + len <= tvb:len()
end

local function note_cut(tree, what)
	tree:add_proto_expert_info(ex.cut, "Capture ends inside the " .. what ..
				   " (snap length); not checked further")
end

-- The segment index a SEG option gives this DATA frame (wire.md §7): 0
-- without one, nil when the inner TCP segment does not fit it or is not
-- in the capture.  As eq_seg_of() in wire.h.
local function seg_index(tvb, stop)
	local off, seg = EQ_HDR_LEN, nil
	for _ = 1, 16 do
		if off + 2 > stop or not captured(tvb, off, 2) then break end
		local kind = tvb(off, 1):uint()
		if kind == OPT_PAD then
			off = off + 1
		else
			local len = tvb(off + 1, 1):uint()
			if len < 2 then break end
			if kind == OPT_SEG then seg = off break end
			off = off + len
		end
	end
	if not seg then return 0 end
	if not captured(tvb, seg, 8) or tvb(seg + 1, 1):uint() < 8 or not captured(tvb, stop, 1) then
		return nil
	end
	local v, hl = bit.rshift(tvb(stop, 1):uint(), 4), 40
	if v == 4 then
		hl = bit.band(tvb(stop, 1):uint(), 15) * 4
		if not captured(tvb, stop, 20) or tvb(stop + 9, 1):uint() ~= 6 or hl < 20 then return nil end
	elseif not captured(tvb, stop, 40) or tvb(stop + 6, 1):uint() ~= 6 then
		return nil
	end
	if not captured(tvb, stop + hl, 8) then return nil end
	local mss = tvb(seg + 2, 2):uint()
	local off32 = (tvb(stop + hl + 4, 4):uint() - tvb(seg + 4, 4):uint()) % 4294967296
	if mss == 0 or off32 % mss ~= 0 or off32 / mss >= EQ_SEG_MAX then return nil end
	return off32 / mss
end

-- Bytes from off to the end of what was captured, if any.
local function add_rest(tree, field, tvb, off)
	if tvb:len() > off then tree:add(field, tvb(off)) end
end

-- Options between byte 20 and hdr_len*4 (= stop).
local function dissect_options(tvb, tree, first, stop)
	if stop <= first then return end
	local otree = tree:add(pf.options, tvb(first, math.min(stop, tvb:len()) - first))
	otree:set_text(string.format("Options (%d bytes)", stop - first))
	local off = first
	while off < stop do
		if not captured(tvb, off, 1) then note_cut(otree, "options") return end
		local kind = tvb(off, 1):uint()
		if kind == OPT_PAD then
			local item = otree:add(pf.opt, tvb(off, 1))
			item:set_text("PAD")
			item:add(pf.opt_kind, tvb(off, 1))
			off = off + 1
		else
			local name = opt_names[kind] or string.format("kind %d", kind)
			if off + 1 >= stop then
				local item = otree:add(pf.opt, tvb(off, 1))
				item:set_text(name .. " (no length byte)")
				item:add(pf.opt_kind, tvb(off, 1))
				item:add_proto_expert_info(ex.opt, string.format(
					"Option %s at header byte %d runs past hdr_len (%d bytes)", name, off, stop))
				return
			end
			if not captured(tvb, off, 2) then note_cut(otree, "options") return end
			local len = tvb(off + 1, 1):uint()
			local avail = stop - off
			local shown = math.min(math.max(len, 2), avail, tvb:len() - off)
			local item = otree:add(pf.opt, tvb(off, shown))
			item:set_text(string.format("%s, len %d", name, len))
			item:add(pf.opt_kind, tvb(off, 1))
			local litem = item:add(pf.opt_len, tvb(off + 1, 1))
			if len < 2 then
				litem:add_proto_expert_info(ex.opt, string.format(
					"Option %s has length %d < 2", name, len))
				return
			end
			if len > avail then
				item:add_proto_expert_info(ex.opt, string.format(
					"Option %s (len %d) at header byte %d runs past hdr_len (%d bytes)",
					name, len, off, stop))
				return
			end
			if not captured(tvb, off, len) then note_cut(item, "option") return end
			local v = off + 2
			local need = opt_len[kind]
			if need and len < need then
				item:add_proto_expert_info(ex.opt, string.format(
					"Option %s has length %d, needs %d", name, len, need))
				if len > 2 then item:add(pf.opt_value, tvb(v, len - 2)) end
			elseif kind == OPT_TSTAMP then
				item:add(pf.opt_tx, tvb(v, 4)); item:add(pf.opt_echo, tvb(v + 4, 4))
			elseif kind == OPT_CREDIT then
				item:add(pf.opt_credit, tvb(v, 4))
			elseif kind == OPT_SRC then
				item:add(pf.opt_qbytes, tvb(v, 4)); item:add(pf.opt_rate, tvb(v + 4, 4))
			elseif kind == OPT_QID then
				item:add(pf.opt_qid, tvb(v, 2))
			elseif kind == OPT_PATH then
				item:add(pf.opt_path, tvb(v, 2))
			elseif kind == OPT_SEG then
				item:add(pf.opt_seg_mss, tvb(v, 2)); item:add(pf.opt_seg_seq, tvb(v + 2, 4))
			elseif kind == OPT_AUTH then
				item:add(pf.opt_key_id, tvb(v, 1)); item:add(pf.opt_tag, tvb(v + 2, 8))
			else
				item:add_proto_expert_info(ex.opt_unknown, string.format(
					"Unknown option kind %d, skipped by its length", kind))
				if len > 2 then item:add(pf.opt_value, tvb(v, len - 2)) end
			end
			if need and len > need then
				item:add_proto_expert_info(ex.opt_long, string.format(
					"Option %s has length %d, %d bytes beyond what this version defines",
					name, len, len - need))
				item:add(pf.opt_value, tvb(off + need, len - need))
			end
			off = off + len
		end
	end
end

-- Calls a subdissector.  An exception inside it (a truncated capture, a
-- malformed inner packet) has already been shown in the tree by Wireshark;
-- pcall keeps it from turning into a Lua error on top.
local function call(d, tvb, pinfo, root)
	pcall(d.call, d, tvb, pinfo, root)
end

-- The inner packet of a DATA packet: checked as xdp_ingress checks it,
-- then handed to the ip / ipv6 dissector.
local function dissect_inner(tvb, pinfo, tree, root, off, proto)
	local rlen = tvb:reported_length_remaining(off)
	if proto ~= EQ_PROTO_IPV4 and proto ~= EQ_PROTO_IPV6 then
		tree:add_proto_expert_info(ex.inner_proto, string.format(
			"Inner protocol %d is neither 4 (IPv4) nor 41 (IPv6) (receiver drops: rx_drop_inner)", proto))
		add_rest(tree, pf.payload, tvb, off)
		return
	end
	local minlen = proto == EQ_PROTO_IPV4 and 20 or 40
	if rlen < minlen then
		tree:add_proto_expert_info(ex.inner_len, string.format(
			"DATA carries %d bytes, less than an %s header (receiver drops: rx_drop_len)",
			rlen, proto_names[proto]))
		add_rest(tree, pf.payload, tvb, off)
		return
	end
	if not captured(tvb, off, 6) then
		note_cut(tree, "inner header")
		add_rest(tree, pf.payload, tvb, off)
		return
	end
	local want = proto == EQ_PROTO_IPV4 and 4 or 6
	local ver = bit.rshift(tvb(off, 1):uint(), 4)
	if ver ~= want then
		tree:add_proto_expert_info(ex.inner_proto, string.format(
			"proto %d says %s, inner packet is IP version %d (receiver drops: rx_drop_inner)",
			proto, proto_names[proto], ver))
		add_rest(tree, pf.payload, tvb, off)
		return
	end
	local inner_len
	if proto == EQ_PROTO_IPV4 then
		local ihl = bit.band(tvb(off, 1):uint(), 0x0f)
		if ihl < 5 then
			tree:add_proto_expert_info(ex.inner_proto, string.format(
				"Inner IPv4 IHL %d < 5 (receiver drops: rx_drop_inner)", ihl))
		end
		inner_len = tvb(off + 2, 2):uint()
	else
		inner_len = tvb(off + 4, 2):uint() + 40
	end
	if inner_len ~= rlen then
		tree:add_proto_expert_info(ex.inner_len, string.format(
			"Inner %s length %d, but UDP carries %d bytes after the edgeq header (receiver drops: rx_drop_len)",
			proto_names[proto], inner_len, rlen))
	end
	pinfo.cols.info:append(" | ")
	pinfo.cols.info:fence()
	call(proto == EQ_PROTO_IPV4 and ip_dissector or ipv6_dissector, tvb(off):tvb(), pinfo, root)
end

function edgeq.dissector(tvb, pinfo, root)
	local rlen = tvb:reported_len()	-- UDP payload as the UDP length says
	local clen = tvb:len()		-- what the capture holds of it
	pinfo.cols.protocol:set("edgeq")
	local tree = root:add(edgeq, tvb(0, math.min(clen, EQ_HDR_LEN)))

	if clen < 1 then
		if rlen < 1 then
			tree:add_proto_expert_info(ex.short, "Empty UDP payload (receiver drops: rx_drop_short)")
		else
			note_cut(tree, "edgeq header")
		end
		pinfo.cols.info:set("edgeq [truncated]")
		return clen
	end

	-- Checked in the receiver's order: length, version, type, hdr_len.
	local vt = tvb(0, 1):uint()
	local ver, typ = bit.rshift(vt, 4), bit.band(vt, 0x0f)
	local tname = type_names[typ] or string.format("type %d", typ)
	if rlen < EQ_HDR_LEN or clen < EQ_HDR_LEN then
		if rlen < EQ_HDR_LEN then
			tree:add_proto_expert_info(ex.short, string.format(
				"UDP payload of %d bytes, shorter than the %d-byte edgeq header (receiver drops: rx_drop_short)",
				rlen, EQ_HDR_LEN))
		else
			note_cut(tree, "edgeq header")
		end
		pinfo.cols.info:set(string.format("%s [truncated header]", tname))
		-- Decode what is there of the common header.
		tree:add(pf.version, tvb(0, 1))
		tree:add(pf.type, tvb(0, 1))
		if clen >= 2 then tree:add(pf.flags, tvb(1, 1)) end
		if clen >= 3 then tree:add(pf.hdr_len, tvb(2, 1)) end
		if clen >= 4 then tree:add(pf.proto, tvb(3, 1)) end
		if clen >= 6 then tree:add(pf.sender_id, tvb(4, 2)) end
		if clen >= 8 then tree:add(pf.path_id, tvb(6, 2)) end
		return clen
	end

	tree:add(pf.version, tvb(0, 1))
	if ver ~= EQ_WIRE_VERSION then
		tree:add_proto_expert_info(ex.version, string.format(
			"edgeq version %d, this dissector knows %d (receiver drops: rx_drop_version)",
			ver, EQ_WIRE_VERSION))
		pinfo.cols.info:set(string.format("edgeq version %d [unknown version]", ver))
		call(data_dissector, tvb(1):tvb(), pinfo, root)
		return clen
	end
	local titem = tree:add(pf.type, tvb(0, 1))
	tree:append_text(", " .. tname)

	-- Common header.
	local flags = tvb(1, 1):uint()
	local ftree = tree:add(pf.flags, tvb(1, 1))
	local fstr = flags_string(flags, data_body[typ])
	if fstr ~= "" then ftree:append_text(" (" .. fstr .. ")") end
	ftree:add(pf.f_syn, tvb(1, 1))
	ftree:add(pf.f_trimmed, tvb(1, 1))
	ftree:add(pf.f_csn, tvb(1, 1))
	ftree:add(pf.f_ece, tvb(1, 1))
	ftree:add(data_body[typ] and pf.f_rtx or pf.f_held, tvb(1, 1))
	ftree:add(pf.f_fast, tvb(1, 1))
	ftree:add(data_body[typ] and pf.f_unsched or pf.f_cum, tvb(1, 1))
	ftree:add(pf.f_lost, tvb(1, 1))

	local hdr_words = tvb(2, 1):uint()
	local hdr_bytes = hdr_words * 4
	local hitem = tree:add(pf.hdr_len, tvb(2, 1))
	hitem:append_text(string.format(" (%d bytes)", hdr_bytes))
	tree:add(pf.hdr_bytes, tvb(2, 1), hdr_bytes):set_generated()
	local proto = tvb(3, 1):uint()
	tree:add(pf.proto, tvb(3, 1))
	local sender = tvb(4, 2):uint()
	tree:add(pf.sender_id, tvb(4, 2))
	local path = tvb(6, 2):uint()
	local pitem = tree:add(pf.path_id, tvb(6, 2))
	local sport = bit.bor(EQ_SPORT_BASE, bit.band(path, EQ_SPORT_MASK))
	if pinfo.src_port ~= sport then
		pitem:add_proto_expert_info(ex.sport, string.format(
			"UDP source port %d, expected 0xc000 | path_id = %d", pinfo.src_port, sport))
	end

	local info = string.format("%s sender=%d path=%d", tname, sender, path)

	if typ > T_MAX then
		titem:add_proto_expert_info(ex.type, string.format(
			"Type %d is reserved in version %d (receiver drops: rx_drop_type)", typ, EQ_WIRE_VERSION))
		tree:add(pf.body, tvb(8, EQ_HDR_LEN - 8))
		pinfo.cols.info:set(info .. " [unknown type]")
		if clen > EQ_HDR_LEN then call(data_dissector, tvb(EQ_HDR_LEN):tvb(), pinfo, root) end
		return clen
	end

	-- Type body.
	if data_body[typ] then
		local seq = tvb(8, 4):uint()
		tree:add(pf.seq, tvb(8, 4))
		local id = typ ~= T_RTS and outer_ipv4_id(tvb) or nil
		if typ == T_DATA and not id then id = seg_index(tvb, hdr_bytes) end
		if typ ~= T_RTS then
			tree:add(pf.seq_rx, tvb(8, 4), (seq + (id or 0)) % 4294967296):set_generated()
		end
		if id and id ~= 0 then
			info = info .. string.format(" seq=%d(+%d)", seq, id)
		else
			info = info .. string.format(" seq=%d", seq)
		end
		tree:add(pf.pull_target, tvb(12, 4))
		tree:add(typ == T_RTS and pf.limit or pf.frame_len, tvb(16, 4))
		info = info .. string.format(" pull_target=%d", tvb(12, 4):uint())
	else
		tree:add(pf.ack, tvb(8, 4))
		tree:add(pf.pull_no, tvb(12, 4))
		tree:add(pf.busy_ns, tvb(16, 4))
		info = info .. string.format(" ack=%d pull_no=%d", tvb(8, 4):uint(), tvb(12, 4):uint())
	end
	if fstr ~= "" then info = info .. " [" .. fstr .. "]" end

	if (typ == T_TRIMMED) ~= (bit.band(flags, F_TRIMMED) ~= 0) then
		ftree:add_proto_expert_info(ex.trim_flag, "Type TRIMMED and flag TRIMMED go together")
	end

	-- hdr_len: the receiver needs 5 <= hdr_len and hdr_len*4 <= UDP payload.
	if hdr_words < EQ_HDR_WORDS then
		hitem:add_proto_expert_info(ex.hdr_len, string.format(
			"hdr_len %d words < %d (receiver drops: rx_drop_len)", hdr_words, EQ_HDR_WORDS))
		pinfo.cols.info:set(info .. " [bad hdr_len]")
		if clen > EQ_HDR_LEN then call(data_dissector, tvb(EQ_HDR_LEN):tvb(), pinfo, root) end
		return clen
	end
	if hdr_bytes > rlen then
		hitem:add_proto_expert_info(ex.hdr_len, string.format(
			"hdr_len %d bytes runs past the %d-byte UDP payload (receiver drops: rx_drop_len)",
			hdr_bytes, rlen))
		pinfo.cols.info:set(info .. " [bad hdr_len]")
		add_rest(tree, pf.payload, tvb, EQ_HDR_LEN)
		return clen
	end
	tree:set_len(math.min(hdr_bytes, clen))
	dissect_options(tvb, tree, EQ_HDR_LEN, hdr_bytes)
	pinfo.cols.info:set(info)
	if clen < hdr_bytes then return clen end	-- cut inside the options: noted there

	-- Payload.
	local left = rlen - hdr_bytes
	if typ == T_DATA then
		dissect_inner(tvb, pinfo, tree, root, hdr_bytes, proto)
	else
		if typ ~= T_TRIMMED and proto ~= 0 then
			tree:add_proto_expert_info(ex.ctl_proto, string.format(
				"proto %d on a %s packet (should be 0)", proto, tname))
		end
		if left > 0 then
			tree:add_proto_expert_info(ex.extra, string.format(
				"%d bytes after the header of a %s packet", left, tname))
			add_rest(tree, pf.payload, tvb, hdr_bytes)
		end
	end
	return clen
end

register_port()
