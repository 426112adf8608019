
BoutputJ(¤Û7½DÄ‘?HØ7¾²¢%?H[½à‹<eK?FÆ>DM:>ÂRc>