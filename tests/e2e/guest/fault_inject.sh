# SPDX-License-Identifier: GPL-2.0
# Random allocation failures on behalf of given modules, for guest scripts
# (sourced; Documentation/fuzzing.rst, "Random allocation failures").
#
#   fi_arm PCT MODULE...  from now on, each slab or page allocation made
#                         with code of one of the modules on the stack
#                         fails with a chance of PCT percent, whatever task
#                         makes it: system calls, the transport's receive
#                         work, the RMA workers, timers
#   fi_disarm             stop; print how many allocations of each kind
#                         were made to fail; return 1 if none was
#   fi_recovered PORT     two nodes, after fi_disarm on each: meet the
#                         other node on PORT (again and again, while it
#                         may still be injecting), then stream 8 MiB each
#                         way, every byte checked, on PORT + 1
#
# The failslab and fail_page_alloc attributes of the debug kernel do the
# work (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER): their required range of
# return addresses is set to span the modules' memory, as /proc/modules
# gives its start and size. Allocations that may sleep are included, and
# so are user pages faulted in for the modules (pinning).

# Upper bound on failures; the kernel counts it down, which gives the count.
FI_TIMES=100000000

fi_arm() {
	fi_pct=$1
	shift
	fi_lo=""
	fi_hi=""
	for fi_m in "$@"; do
		fi_addr=""
		# name size refcount users state address
		read -r _ fi_size _ _ _ fi_addr _ <<EOF
$(grep "^$fi_m " /proc/modules)
EOF
		case "$fi_addr" in
		0x0000000000000000 | "")
			echo "fault_inject: no address for module $fi_m" >&2
			return 1 ;;
		esac
		fi_s=$((fi_addr))
		fi_e=$((fi_addr + fi_size))
		# Kernel addresses are negative as signed numbers: the order holds.
		if [ -z "$fi_lo" ] || [ "$fi_s" -lt "$fi_lo" ]; then fi_lo=$fi_s; fi
		if [ -z "$fi_hi" ] || [ "$fi_e" -gt "$fi_hi" ]; then fi_hi=$fi_e; fi
	done
	for fi_f in failslab fail_page_alloc; do
		fi_d=/sys/kernel/debug/$fi_f
		echo 0 >"$fi_d/probability"
		printf '0x%x\n' "$fi_lo" >"$fi_d/require-start"
		printf '0x%x\n' "$fi_hi" >"$fi_d/require-end"
		echo N >"$fi_d/task-filter"
		echo N >"$fi_d/ignore-gfp-wait"
		echo 1 >"$fi_d/interval"
		echo 0 >"$fi_d/space"
		echo 0 >"$fi_d/verbose"
		echo "$FI_TIMES" >"$fi_d/times"
	done
	echo N >/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem
	echo "$fi_pct" >/sys/kernel/debug/failslab/probability
	echo "$fi_pct" >/sys/kernel/debug/fail_page_alloc/probability
	printf 'fault_inject: %s%% of the allocations of %s fail (0x%x-0x%x)\n' \
		"$fi_pct" "$*" "$fi_lo" "$fi_hi"
}

fi_disarm() {
	fi_total=0
	for fi_f in failslab fail_page_alloc; do
		echo 0 >"/sys/kernel/debug/$fi_f/probability"
	done
	for fi_f in failslab fail_page_alloc; do
		fi_n=$((FI_TIMES - $(cat "/sys/kernel/debug/$fi_f/times")))
		fi_total=$((fi_total + fi_n))
		echo "fault_inject: $fi_f: $fi_n allocations failed"
	done
	[ "$fi_total" -gt 0 ] || {
		echo "fault_inject: no allocation failed: nothing was tested" >&2
		return 1
	}
}

fi_recovered() {
	fi_i=$SCIF_NODE_INDEX
	if [ "$fi_i" = 0 ]; then
		scif-ntb-test serve "$1" 1 >/dev/null || return 1
	else
		fi_t=0
		until scif-ntb-test echo 0 "$1" 1 >/dev/null 2>&1; do
			fi_t=$((fi_t + 1))
			[ "$fi_t" -lt 100 ] || return 1
			sleep 1
		done
	fi
	scif-ntb-test serve $(($1 + 1)) 1 &
	fi_server=$!
	if ! scif-ntb-test stream $((1 - fi_i)) $(($1 + 1)) 8; then
		kill "$fi_server" 2>/dev/null
		return 1
	fi
	wait "$fi_server" || return 1
	echo "fault_inject: node $fi_i recovered: 8 MiB each way checked"
}
