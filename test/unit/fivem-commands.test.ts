import { expect } from 'chai';
import type { CustomField } from '../../db/models';
import { commandSafeText, renderCommand, resolvePlayer } from '../../shared/services/fulfilment/fivem';

/** What a game server's console receives: placeholders filled, nothing a buyer typed can add a command. */
describe('FiveM command templates', () => {
  const fields: CustomField[] = [
    { type: 'text', label: 'Discord', required: false },
    { type: 'text', label: 'Your player id', required: true },
    { type: 'text', label: 'Second player', required: false },
  ];

  it('reads the player from the first field labelled "player", as checkout stores it or as plain text', () => {
    const stored = {
      '1': { type: 'text', label: 'Your player id', value: ' license:ab12 ' },
      '2': 'steam:1',
    };
    expect(resolvePlayer(fields, stored)).to.deep.equal({ player: 'license:ab12' });
    expect(resolvePlayer(fields, { '1': 42 })).to.deep.equal({ player: '42' });
    for (const unsafe of ['a b', 'x;quit', '"1"', 'line\nbreak', 'x'.repeat(65)]) {
      expect(
        resolvePlayer(fields, { '1': { type: 'text', label: 'p', value: unsafe } }).player,
        unsafe,
      ).to.equal(null);
    }
  });

  it('fills every placeholder, keeps unknown ones (the resource fills {server_id}) and strips unsafe text', () => {
    const command = renderCommand(
      'give {player} {product_name} x{quantity} ({unit}) #{order_id} {customer_name} {server_id} {nope}',
      {
        player: 'license:ab12',
        orderId: 9,
        quantity: 2,
        unit: 1,
        customerFirstName: 'Sa"ra; quit',
        customerLastName: 'Al\ni',
        productId: 3,
        productName: 'VIP; ban all',
      },
    );
    expect(command).to.equal('give license:ab12 VIP ban all x2 (1) #9 Sara quit Ali {server_id} {nope}');
    expect(commandSafeText('Ünïcødé نور ok_-.')).to.equal('Ünïcødé نور ok_-.');
    expect(commandSafeText("'; rcon_password x")).to.equal('rcon_password x');
  });
});
