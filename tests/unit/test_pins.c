// SPDX-License-Identifier: GPL-2.0-only
/*
 * user/common/pins.c: the pin directory's name.  bpffs refuses a '.'
 * anywhere in a name, so an interface named with one (a VLAN device,
 * eth0.100) gets a directory that spells it %2e ('%' and '@', the netns
 * separator, as %25 and %40), and the name comes back from it whole;
 * plain names are unchanged; outside the initial netns the directory
 * ends in @ns<inode>, which the name leaves out.
 */
#include "testlib.h"
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pins.h"

static void name_of(const char *dir, char *ifname)
{
	const char *entry = strrchr(dir, '/');

	assert_non_null(entry);
	eq_pin_ifname(entry + 1, ifname, IF_NAMESIZE);
}

static void round_trip(const char *ifname, const char *spelt)
{
	char dir[512], back[IF_NAMESIZE], want[512];
	const char *entry;

	assert_int_equal(eq_pin_dir(ifname, dir, sizeof(dir)), 0);
	entry = strrchr(dir, '/') + 1;
	snprintf(want, sizeof(want), "%s", spelt);
	assert_int_equal(strncmp(entry, want, strlen(want)), 0);
	assert_null(strchr(entry, '.'));		/* bpffs would refuse it */
	name_of(dir, back);
	assert_string_equal(back, ifname);
}

static void pins__names_with_dots_are_spelt_and_come_back(void **state)
{
	setenv("EDGEQ_PIN_ROOT", "/sys/fs/bpf/edgeq-test", 1);
	round_trip("eth0", "eth0");
	round_trip("eth0.100", "eth0%2e100");
	round_trip("a.b.c", "a%2eb%2ec");
	round_trip("x%y@z", "x%25y%40z");
}

static void pins__the_netns_suffix_is_not_part_of_the_name(void **state)
{
	char ifname[IF_NAMESIZE];

	eq_pin_ifname("eth0%2e100@ns4026532176", ifname, sizeof(ifname));
	assert_string_equal(ifname, "eth0.100");
	eq_pin_ifname("eth0", ifname, sizeof(ifname));
	assert_string_equal(ifname, "eth0");
	eq_pin_ifname("a%40b@ns1", ifname, sizeof(ifname));
	assert_string_equal(ifname, "a@b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pins__names_with_dots_are_spelt_and_come_back),
		cmocka_unit_test(pins__the_netns_suffix_is_not_part_of_the_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
